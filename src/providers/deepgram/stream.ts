/**
 * One Deepgram live socket per call. Caller audio goes out as binary frames (mu-law at 8 kHz) as it is written;
 * interim results reach the listeners at once (text = the utterance so far, so barge-in sees every word), final
 * segments collect until our end of turn, when `Finalize` flushes Deepgram and finalize() resolves with them.
 * KeepAlive goes out when no audio has for keepAliveMs (a carrier that sends nothing while the caller is silent,
 * a stalled feed); `CloseStream` at hang-up. A socket that drops mid-call is replaced, and the audio no final
 * result covered yet (ReplayBuffer) is sent again first, so no words are lost; a bad key is not retried.
 * Media time: Deepgram times are seconds of this socket's audio, mapped from the media time of its first chunk.
 */
import { backoffMs } from '../http/retry.js';
import type WebSocket from 'ws';
import { mulawEncode } from '../../audio/g711.js';
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import type { Logger } from '../../log.js';
import { CLOSE_STREAM, FINALIZE, KEEP_ALIVE, parseServerMessage, type ServerMessage } from './messages.js';
import { ReplayBuffer } from './replay.js';
import { TurnSegments } from './segments.js';
import { openListenSocket } from './socket.js';

/**
 * Caller audio goes out in messages of this much, not one per 20 ms frame: a third of the socket messages at both
 * ends, for interim words at most 40 ms later (finals are not: Finalize sends what is pending first).
 */
const SEND_BATCH_MS = 60;

export interface DeepgramStreamOptions {
  /** the full listen URL, query included */
  url: string;
  apiKey: string;
  encoding: 'mulaw' | 'linear16';
  sampleRateHz: number;
  log: Logger;
  /** send KeepAlive after this long without audio (Deepgram closes after 10 s of nothing), ms */
  keepAliveMs: number;
  /** consecutive failed connection attempts before the stream gives up */
  maxReconnects: number;
  /** wait before the second attempt, doubling after (the first is immediate), ms */
  reconnectBackoffMs: number;
  /** the most uncovered audio kept for a replay, ms */
  replayMaxMs: number;
  /** how long CloseStream may take before the socket is cut, ms */
  closeWaitMs: number;
}

type State = 'connecting' | 'open' | 'closed' | 'failed';
interface Waiter { targetMs: number; resolve(r: TranscriptResult): void; reject(err: unknown): void; canceled: boolean }

export class DeepgramStream implements SttStream {
  #ws?: WebSocket;
  #state: State = 'connecting';
  #failure?: AdapterError;
  #refused?: AdapterError;
  /** failed attempts since a socket last delivered a result */
  #attempts = 0;
  #reconnectTimer?: NodeJS.Timeout;
  readonly #keepAliveTimer: NodeJS.Timeout;
  readonly #replay: ReplayBuffer;
  /** media time of the current socket's first audio */
  #baseMs?: number;
  /** media time up to which final results cover the audio */
  #coveredMs = 0;
  /** end of the audio written so far, media ms */
  #writtenMs = 0;
  readonly #turn = new TurnSegments();
  #waiters: Waiter[] = [];
  #lastSentAt = performance.now();
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  /** sockets opened (1 + reconnects), results ignored as malformed, KeepAlives sent: for logs and tests */
  readonly stats = { connects: 0, malformed: 0, keepAlives: 0 };
  /** audio written since the last message: sent in batches of SEND_BATCH_MS */
  #pending: Uint8Array[] = [];
  #pendingMs = 0;

  constructor(private readonly o: DeepgramStreamOptions) {
    this.#replay = new ReplayBuffer(o.replayMaxMs);
    this.#keepAliveTimer = setInterval(() => this.#keepAlive(), Math.max(50, o.keepAliveMs / 4));
    this.#keepAliveTimer.unref();
    this.#connect();
  }

  write(pcm: Int16Array, atMs: number): void {
    if (this.#state === 'closed' || this.#state === 'failed') return;
    const bytes = this.o.encoding === 'mulaw' ? mulawEncode(pcm) : new Uint8Array(pcm.slice().buffer);
    const durMs = (pcm.length / this.o.sampleRateHz) * 1000;
    this.#replay.push({ atMs, durMs, bytes });
    this.#writtenMs = atMs + durMs;
    if (this.#state === 'open') {
      this.#baseMs ??= atMs;
      this.#pending.push(bytes);
      this.#pendingMs += durMs;
      if (this.#pendingMs >= SEND_BATCH_MS - 0.5) this.#flush();
    }
  }

  /** Sends the audio written since the last message (before Finalize and CloseStream too, so no turn waits on it). */
  #flush(): void {
    if (!this.#pending.length) return;
    const data = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingMs = 0;
    if (this.#state === 'open') this.#send(data);
  }

  finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    return withDeadline('stt', opts, (signal) => new Promise<TranscriptResult>((resolve, reject) => {
      if (this.#state === 'closed') return reject(new AdapterError('stt', 'canceled', 'stream closed'));
      if (this.#state === 'failed') return reject(this.#failure);
      const waiter: Waiter = { targetMs: this.#writtenMs, resolve, reject, canceled: false };
      // a timed-out waiter stays queued, so the answer to its Finalize is not taken for the next turn's
      signal.addEventListener('abort', () => { waiter.canceled = true; }, { once: true });
      this.#waiters.push(waiter);
      if (this.#coveredMs >= waiter.targetMs - 1 && this.#waiters.length === 1) { this.#settle(false); return; }
      if (this.#state === 'open') { this.#flush(); this.#send(FINALIZE); }
    }));
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }

  close(): void {
    if (this.#state === 'closed') return;
    this.#flush();
    const wasOpen = this.#state === 'open';
    this.#state = 'closed';
    clearInterval(this.#keepAliveTimer);
    clearTimeout(this.#reconnectTimer);
    this.#listeners.length = 0;
    this.#waiters = [];
    this.#replay.clear();
    const ws = this.#ws;
    if (!ws) return;
    if (wasOpen) {
      // Deepgram sends what is left and a Metadata summary, then closes; a socket that does not is cut
      ws.send(CLOSE_STREAM, () => {});
      setTimeout(() => ws.terminate(), this.o.closeWaitMs).unref();
    } else {
      ws.terminate();
    }
  }

  #connect(): void {
    this.#refused = undefined;
    this.stats.connects++;
    const ws = openListenSocket(this.o.url, this.o.apiKey, (err) => { this.#refused = err; });
    this.#ws = ws;
    ws.on('open', () => this.#onOpen(ws));
    ws.on('message', (data, isBinary) => { if (this.#ws === ws) this.#onMessage(parseServerMessage(data, isBinary)); });
    ws.on('error', (err) => this.o.log.debug({ err: err.message }, 'deepgram socket error'));
    ws.on('close', (code, reason) => this.#onClose(ws, code, reason.toString()));
  }

  #onOpen(ws: WebSocket): void {
    if (this.#state !== 'connecting' || this.#ws !== ws) return;
    this.#state = 'open';
    this.#pending = []; // the replay below holds them
    this.#pendingMs = 0;
    this.#baseMs = this.#replay.chunks[0]?.atMs;
    if (this.stats.connects > 1) {
      this.o.log.info({ replayMs: Math.round(this.#replay.durationMs), lostMs: Math.round(this.#replay.droppedMs) }, 'deepgram socket reconnected');
    }
    for (const c of this.#replay.chunks) this.#send(c.bytes);
    // Finalize messages sent on a lost socket were never answered: ask again for the turns still waiting
    this.#waiters = this.#waiters.filter((w) => !w.canceled);
    for (let i = 0; i < this.#waiters.length; i++) this.#send(FINALIZE);
  }

  #onClose(ws: WebSocket, code: number, reason: string): void {
    if (this.#ws !== ws) return;
    this.#ws = undefined;
    if (this.#state === 'closed' || this.#state === 'failed') return;
    this.#state = 'connecting';
    if (this.#refused && !this.#refused.retryable) { this.#fail(this.#refused); return; }
    this.#attempts++;
    this.o.log.warn({ code, reason: reason.slice(0, 120), attempt: this.#attempts }, 'deepgram socket closed mid-call');
    if (this.#attempts > this.o.maxReconnects) {
      this.#fail(this.#refused ?? new AdapterError('stt', 'unavailable', `Deepgram socket lost (${code}) and ${this.o.maxReconnects} reconnects failed`));
      return;
    }
    const delay = this.#attempts === 1 ? 0 : backoffMs(this.#attempts - 2, { baseMs: this.o.reconnectBackoffMs, jitter: 0 });
    this.#reconnectTimer = setTimeout(() => { if (this.#state === 'connecting') this.#connect(); }, delay);
  }

  #fail(err: AdapterError): void {
    this.#state = 'failed';
    this.#failure = err;
    clearInterval(this.#keepAliveTimer);
    this.#replay.clear();
    this.o.log.warn({ code: err.code, err: err.message }, 'deepgram stream failed');
    this.#ws?.terminate();
    // settle every waiter at once; withDeadline turns this into each finalize's rejection
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const w of waiting) w.reject(err);
  }

  #onMessage(m: ServerMessage): void {
    switch (m.type) {
      case 'Results': {
        this.#attempts = 0;
        const base = this.#baseMs ?? this.#coveredMs;
        const startMs = base + m.start * 1000;
        const endMs = base + (m.start + m.duration) * 1000;
        const confidence = m.confidence !== undefined ? { confidence: m.confidence } : {};
        if (!m.isFinal) {
          this.#turn.interim(m.transcript);
          if (m.transcript) this.#emit({ text: this.#turn.soFar(), final: false, startMs, endMs, ...confidence });
          return;
        }
        this.#coveredMs = Math.max(this.#coveredMs, endMs);
        this.#replay.coveredUntil(this.#coveredMs);
        this.#turn.final({ text: m.transcript, startMs, endMs, ...confidence });
        if (m.transcript) this.#emit({ text: m.transcript, final: true, startMs, endMs, ...confidence });
        this.#settle(m.fromFinalize);
        return;
      }
      case 'malformed':
        this.stats.malformed++;
        this.o.log.debug({ why: m.why }, 'deepgram message ignored');
        return;
      default:
        // SpeechStarted, UtteranceEnd, Metadata: turn-taking is decided by our own detector, not here
        this.o.log.trace({ type: m.type }, 'deepgram event');
    }
  }

  /** Resolves the oldest finalize once its audio is covered (or Deepgram answered its Finalize). */
  #settle(fromFinalize: boolean): void {
    const w = this.#waiters[0];
    if (!w || !(fromFinalize || this.#coveredMs >= w.targetMs - 1)) return;
    this.#waiters.shift();
    if (w.canceled) return; // its words stay for the next finalize
    w.resolve(this.#turn.take(this.#coveredMs));
    if (this.#waiters.length) this.#settle(false);
  }

  #emit(r: TranscriptResult): void { for (const l of this.#listeners) l(r); }

  #send(data: Uint8Array | string): void {
    this.#lastSentAt = performance.now();
    this.#ws?.send(data, (err) => { if (err) this.o.log.debug({ err: err.message }, 'deepgram send failed'); });
  }

  #keepAlive(): void {
    if (this.#state !== 'open' || performance.now() - this.#lastSentAt < this.o.keepAliveMs) return;
    this.stats.keepAlives++;
    this.#send(KEEP_ALIVE);
  }
}

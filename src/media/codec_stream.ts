/**
 * What every carrier's media codec shares (Twilio, Plivo, Exotel): a MediaStream over one carrier WebSocket whose decoded input
 * (caller frames, mark echoes, DTMF, the end) is held until the call's session attaches, then replayed in order
 * (ws emits all messages of one TCP read at once, before the session's promise continuation runs). The wire format
 * of what goes out is each codec's own.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Logger } from '../log.js';
import type { MediaHandlers, MediaStream } from './stream.js';

export type StreamInput =
  | { kind: 'audio'; pcm: Int16Array }
  | { kind: 'mark'; name: string }
  | { kind: 'dtmf'; digit: string };

/** decoded input kept for a stream whose call has not attached yet (10 s of 20 ms frames) */
const MAX_EARLY = 500;

export abstract class CodecStream implements MediaStream {
  #handlers?: MediaHandlers;
  #ended = false;
  #endReason?: 'stop' | 'closed';
  #early: StreamInput[] = [];

  constructor(protected readonly ws: WebSocket, readonly carrierCallId: string, readonly parameters: Record<string, string>,
    private readonly socket?: Pick<Duplex, 'cork' | 'uncork'>) {}

  abstract sendMedia(frame: Uint8Array): void;
  abstract sendMark(name: string): void;
  abstract sendClear(): void;

  attach(h: MediaHandlers): void {
    this.#handlers = h;
    for (const m of this.#early.splice(0)) this.input(m);
    if (this.#endReason && !this.#ended) this.end(this.#endReason);
  }

  /** internal: decoded input of the codec */
  input(m: StreamInput): void {
    const h = this.#handlers;
    if (this.#ended) return;
    if (!h) { if (this.#early.length < MAX_EARLY) this.#early.push(m); return; }
    if (m.kind === 'audio') h.audio(m.pcm);
    else if (m.kind === 'mark') h.mark(m.name);
    else h.dtmf(m.digit);
  }

  end(reason: 'stop' | 'closed'): void {
    if (this.#ended) return;
    if (!this.#handlers) { this.#endReason ??= reason; return; }
    this.#ended = true;
    this.onEnd();
    this.#handlers.ended(reason);
  }

  /** codec clean-up when the stream ends (timers) */
  protected onEnd(): void {}

  protected send(text: string): void { if (this.ws.readyState === this.ws.OPEN) this.ws.send(text); }

  /** What one playout tick sends leaves in one TCP write. */
  batch(send: () => void): void {
    this.socket?.cork();
    try { send(); this.flush(); } finally { this.socket?.uncork(); }
  }

  /** sends what the codec holds back to combine (called at the end of each batch) */
  protected flush(): void {}

  /** We hang up this leg: for both carriers closing the stream socket ends the bot's part of the call. */
  close(): void { if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000, 'call ended'); }
}

/** Splits PCM16 of any length into 20 ms frames at 8 kHz (160 samples), carrying the remainder. */
export class FrameSplitter {
  #carry = new Int16Array(0);
  push(pcm: Int16Array, emit: (frame: Int16Array) => void): void {
    let all = pcm;
    if (this.#carry.length) { all = new Int16Array(this.#carry.length + pcm.length); all.set(this.#carry); all.set(pcm, this.#carry.length); }
    let o = 0;
    for (; o + 160 <= all.length; o += 160) emit(all.slice(o, o + 160));
    this.#carry = all.slice(o);
  }
}

/** The codec's part in a media socket's life: reading one text message, and opening the stream on its `start`. */
export interface SocketCodec<M extends { event: string }> {
  /** e.g. 'plivo', for the log */
  name: string;
  /** parses one text message; throws on one that is not the protocol's */
  parse(text: string): M;
  /** the stream a `start` opens, or undefined after closing the socket itself (not authorized, unknown call) */
  start(m: M): { deliver(m: M): void; end(reason: 'stop' | 'closed'): void } | undefined;
}

/**
 * A carrier media socket from its upgrade on: text messages only (1003 otherwise), each parsed by the codec (1007
 * when it cannot be), nothing but `start` believed before the stream opens, and a socket that does not start within
 * startTimeoutMs closed (1008). Its close or error ends the stream.
 */
export function runMediaSocket<M extends { event: string }>(ws: WebSocket, codec: SocketCodec<M>, log: Logger, startTimeoutMs: number): void {
  let stream: ReturnType<SocketCodec<M>['start']>;
  let started = false; // one start per socket: a refused one is not retried with another capability
  const timer = setTimeout(() => { if (!started) ws.close(1008, 'no start in time'); }, startTimeoutMs);
  timer.unref();
  ws.on('message', (data, isBinary) => {
    if (isBinary) { ws.close(1003, 'binary frames are not part of the protocol'); return; }
    let m: M;
    try { m = codec.parse(data.toString()); } catch (err) {
      log.warn({ err: (err as Error).message }, `${codec.name} media: invalid message`);
      ws.close(1007, 'invalid message');
      return;
    }
    if (stream) { stream.deliver(m); return; }
    if (m.event !== 'start' || started) return;
    started = true;
    clearTimeout(timer);
    stream = codec.start(m);
  });
  ws.on('close', () => { clearTimeout(timer); stream?.end('closed'); });
  ws.on('error', () => stream?.end('closed'));
}

/**
 * "Call the agent": a real call from the browser (src/carriers/browser/README.md). POST /v1/browser-calls, then
 * one WebSocket: the microphone goes out as 20 ms of PCM16 at 16 kHz, the agent's 8 kHz audio comes back into a
 * jitter buffer that plays it (an AudioWorklet, or a ScriptProcessor where worklets are missing), echoes its marks
 * as they play and drops what it holds on `clear` (the visitor talked over the agent). The call's live items
 * (transcripts, entities) come on the same socket. Voice processing stays on here, unlike a recorded turn: the
 * agent's voice comes out of the speakers while the microphone is open, and echo cancellation keeps it from being
 * heard as the visitor barging in.
 */
import { publicRequest } from '../shared/http';
import { socketBase } from '../shared/settings';
import captureWorklet from './capture.worklet.ts?worker&url';
import playerWorklet from './call_player.worklet.ts?worker&url';
import { PlayoutBuffer } from './playout_buffer';

export const CALL_SEND_RATE_HZ = 16_000;
/** 20 ms at 16 kHz */
const FRAME_SAMPLES = 320;

export interface CallItem { type: string; speaker?: string; text?: string; partial?: boolean; key?: string; value?: string; seq: number }

export interface CallEvents {
  /** the call listens (its session has the leg) */
  started(call: BrowserCall): void;
  item(item: CallItem): void;
  /** the call is over (closed by either side): the socket's close code and reason */
  ended(code: number, reason: string): void;
}

interface Created { call: { id: string }; token: string; media_url: string }
/** which call a leg joins, its single-use token, and the socket */
export interface LegTicket { callId: string; token: string; url: string }

/** The player side: where the agent's audio, marks and clears go, and what comes back. */
interface Player { push(a: Float32Array): void; mark(name: string): void; clear(): void; close(): void }

export class BrowserCall {
  /** agent audio messages received, and ms of it played (the page shows both) */
  framesReceived = 0;
  playedMs = 0;
  /** recent microphone loudness, 0..1 */
  level = 0;
  #closed = false;

  private constructor(readonly callId: string, private ws: WebSocket, private ctx: AudioContext, private mic: MediaStream,
    private stopCapture: () => void, private player: Player) {}

  /** Starts a call: the microphone (the browser asks once), the call, its socket. */
  static async start(base: string, events: CallEvents): Promise<BrowserCall> {
    return BrowserCall.#open(async () => {
      const created = await publicRequest<Created>(`${base}/browser-calls`, { json: { time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone } });
      return { callId: created.call.id, token: created.token, url: `${socketBase(base)}/media/browser` };
    }, events);
  }

  /**
   * Joins a call that already runs, with a leg's ticket (an operator's softphone: POST /v1/handoffs/{id}/audio
   * gives the socket and the single-use token); the same microphone, player and protocol as a call of our own.
   */
  static join(ticket: () => Promise<LegTicket>, events: CallEvents): Promise<BrowserCall> {
    return BrowserCall.#open(ticket, events);
  }

  static async #open(ticket: () => Promise<LegTicket>, events: CallEvents): Promise<BrowserCall> {
    if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot use the microphone here (a secure https:// page is needed).');
    const mic = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } });
    const ctx = new AudioContext({ sampleRate: CALL_SEND_RATE_HZ });
    try {
      const leg = await ticket();
      const ws = new WebSocket(leg.url);
      let call: BrowserCall | undefined;
      const onMarks = (names: string[]) => { for (const name of names) send(ws, { event: 'mark', name }); };
      const onPlayed = (ms: number) => { if (call) call.playedMs = ms; };
      const player = await openPlayer(ctx, onMarks, onPlayed);
      const stopCapture = await openCapture(ctx, mic, (pcm, level) => {
        if (!call) return;
        call.level = Math.max(call.level * 0.9, level);
        if (call.#started) send(ws, { event: 'media', payload: base64(pcm) });
      });
      call = new BrowserCall(leg.callId, ws, ctx, mic, stopCapture, player);
      call.#wire(leg, events);
      await ctx.resume();
      return call;
    } catch (err) {
      mic.getTracks().forEach((t) => t.stop());
      await ctx.close();
      throw err;
    }
  }

  #started = false;

  #wire(leg: LegTicket, events: CallEvents): void {
    const ws = this.ws;
    // the socket may have opened while the audio nodes were set up; nothing arrives before our start
    const start = () => send(ws, { event: 'start', call_id: leg.callId, token: leg.token, media_format: { encoding: 'pcm16', sample_rate: CALL_SEND_RATE_HZ } });
    if (ws.readyState === WebSocket.OPEN) start(); else ws.onopen = start;
    ws.onmessage = (ev: MessageEvent<string>) => {
      let m: { event?: string; payload?: string; name?: string; item?: CallItem };
      try { m = JSON.parse(ev.data); } catch { return; }
      if (m.event === 'media' && m.payload) { this.framesReceived++; this.player.push(pcm16ToFloat(m.payload)); }
      else if (m.event === 'mark' && m.name !== undefined) this.player.mark(m.name);
      else if (m.event === 'clear') this.player.clear();
      else if (m.event === 'item' && m.item) events.item(m.item);
      else if (m.event === 'started') { this.#started = true; events.started(this); }
    };
    ws.onclose = (ev) => { void this.#release(); events.ended(ev.code, ev.reason); };
  }

  /** Hangs up: the call ends as the caller's hang-up. */
  hangUp(): void {
    send(this.ws, { event: 'stop' });
    this.ws.close(1000, 'hung up');
    void this.#release();
  }

  async #release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.stopCapture();
    this.player.close();
    this.mic.getTracks().forEach((t) => t.stop());
    await this.ctx.close().catch(() => {});
  }
}

const send = (ws: WebSocket, m: object) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(m)); };

function base64(pcm: Int16Array): string {
  const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s);
}

function pcm16ToFloat(payload: string): Float32Array {
  const bin = atob(payload);
  const out = new Float32Array(bin.length >> 1);
  for (let i = 0; i < out.length; i++) {
    const v = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
    out[i] = (v >= 0x8000 ? v - 0x10000 : v) / 32768;
  }
  return out;
}

/** The microphone as 20 ms PCM16 frames at the context's rate (16 kHz), with their loudness. */
async function openCapture(ctx: AudioContext, mic: MediaStream, onFrame: (pcm: Int16Array, level: number) => void): Promise<() => void> {
  const source = ctx.createMediaStreamSource(mic);
  let frame = new Int16Array(FRAME_SAMPLES);
  let at = 0;
  let sum = 0;
  const take = (block: Float32Array) => {
    for (const v of block) {
      frame[at++] = Math.max(-32768, Math.min(32767, Math.round(v * 32767)));
      sum += v * v;
      if (at === FRAME_SAMPLES) { onFrame(frame, Math.sqrt(sum / FRAME_SAMPLES)); frame = new Int16Array(FRAME_SAMPLES); at = 0; sum = 0; }
    }
  };
  if (ctx.audioWorklet) {
    await ctx.audioWorklet.addModule(captureWorklet);
    const node = new AudioWorkletNode(ctx, 'voicecall-capture', { numberOfInputs: 1, numberOfOutputs: 1, channelCount: 1 });
    node.port.onmessage = (ev: MessageEvent<Float32Array>) => take(ev.data);
    source.connect(node);
    node.connect(ctx.destination); // pulled only when it reaches the destination; it writes silence
    return () => { node.port.onmessage = null; source.disconnect(); node.disconnect(); };
  }
  // Browsers without AudioWorklet: the deprecated ScriptProcessor, on the main thread.
  const node = ctx.createScriptProcessor(1024, 1, 1);
  node.onaudioprocess = (ev) => take(ev.inputBuffer.getChannelData(0).slice());
  source.connect(node);
  node.connect(ctx.destination);
  return () => { node.onaudioprocess = null; source.disconnect(); node.disconnect(); };
}

async function openPlayer(ctx: AudioContext, onMarks: (names: string[]) => void, onPlayed: (ms: number) => void): Promise<Player> {
  if (ctx.audioWorklet) {
    await ctx.audioWorklet.addModule(playerWorklet);
    const node = new AudioWorkletNode(ctx, 'voicecall-call-player', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
    node.port.onmessage = (ev: MessageEvent<{ marks?: string[]; playedMs?: number }>) => {
      if (ev.data.marks) onMarks(ev.data.marks);
      if (ev.data.playedMs !== undefined) onPlayed(ev.data.playedMs);
    };
    node.connect(ctx.destination);
    return {
      push: (a) => node.port.postMessage({ audio: a }, [a.buffer]),
      mark: (name) => node.port.postMessage({ mark: name }),
      clear: () => node.port.postMessage({ clear: true }),
      close: () => { node.port.onmessage = null; node.disconnect(); },
    };
  }
  const buffer = new PlayoutBuffer();
  const node = ctx.createScriptProcessor(1024, 0, 1);
  node.onaudioprocess = (ev) => {
    const marks = buffer.render(ev.outputBuffer.getChannelData(0), ctx.sampleRate);
    if (marks.length) onMarks(marks);
    onPlayed(buffer.playedMs);
  };
  node.connect(ctx.destination);
  return {
    push: (a) => buffer.push(a), mark: (name) => buffer.mark(name), clear: () => onMarks(buffer.clear()),
    close: () => { node.onaudioprocess = null; node.disconnect(); },
  };
}

/**
 * What every media codec shares (Twilio, Plivo, Exotel, and any other WebSocket media such as a browser's): a
 * MediaStream over one WebSocket whose decoded input (caller frames, mark echoes, DTMF, the end) is held until the
 * call's session attaches, then replayed in order (ws emits all messages of one TCP read at once, before the
 * session's promise continuation runs). The wire format of what goes out is each codec's own.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { MediaHandlers, MediaStream } from '../media/stream.js';

export type StreamInput =
  | { kind: 'audio'; pcm: Int16Array }
  | { kind: 'mark'; name: string }
  | { kind: 'dtmf'; digit: string };

/** decoded input kept for a stream whose call has not attached yet (10 s of 20 ms frames) */
const MAX_EARLY = 500;

export abstract class CodecStream<M = unknown> implements MediaStream {
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

  /** decoded input of the wire message `m` (each codec maps its own messages here) */
  abstract deliver(m: M): void;

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

  /** We hang up this leg: closing the stream socket ends the bot's part of the call. */
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

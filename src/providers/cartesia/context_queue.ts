/**
 * The audio of one Cartesia context as the socket delivers it, waited on by the synthesis that owns it: chunks
 * queue until taken; the end (done), an error or the socket's loss ends the wait. deliver() maps the server's
 * messages onto it.
 */
import { AdapterError } from '../../adapters/types.js';

export class ContextQueue {
  readonly #chunks: Uint8Array[] = [];
  #ended = false;
  #error: AdapterError | undefined;
  #wake: (() => void) | undefined;
  /** audio arrived for this context (a lost socket can then no longer be recovered by sending it again) */
  received = false;
  /** the socket it was sent on: only that socket's loss fails it */
  socket: Promise<unknown> | undefined;
  /** the provider itself ended the context (done or error): nothing left to cancel */
  settledByProvider = false;
  readonly #failed: Promise<never>;
  #reject!: (err: AdapterError) => void;

  constructor() {
    this.#failed = new Promise<never>((_, reject) => { this.#reject = reject; });
    this.#failed.catch(() => {});
  }

  /** Rejects when the context fails (abort, deadline, lost socket), for waits other than next(). */
  get failed(): Promise<never> { return this.#failed; }

  get finished(): boolean { return this.#ended || this.#error !== undefined; }

  push(chunk: Uint8Array): void {
    if (this.finished) return;
    this.received = true;
    this.#chunks.push(chunk);
    this.#wake?.();
  }

  end(): void { if (!this.finished) { this.#ended = true; this.#wake?.(); } }
  fail(err: AdapterError): void { if (!this.finished) { this.#error = err; this.#reject(err); this.#wake?.(); } }

  /** The next chunk, undefined at the end; throws the error. */
  async next(): Promise<Uint8Array | undefined> {
    for (;;) {
      const c = this.#chunks.shift();
      if (c) return c;
      if (this.#error) throw this.#error;
      if (this.#ended) return undefined;
      await new Promise<void>((r) => { this.#wake = r; });
      this.#wake = undefined;
    }
  }
}

/** A server message of the WebSocket (chunk, done, error; timestamps and flush_done are not used). */
export interface ServerMessage { type?: string; context_id?: string; data?: string; status_code?: number; title?: string; message?: string; error?: string }

/** What a message means for its context: audio, the end, or an error coded by its status. */
export function deliver(m: ServerMessage, q: ContextQueue): void {
  switch (m.type) {
    case 'chunk': if (m.data) q.push(Buffer.from(m.data, 'base64')); break;
    case 'done': q.settledByProvider = true; q.end(); break;
    case 'error': {
      q.settledByProvider = true;
      const s = m.status_code ?? 500;
      const code = s === 429 || s >= 500 ? 'unavailable' : s === 400 || s === 422 ? 'invalid' : 'failed';
      q.fail(new AdapterError('tts', code, `cartesia error ${s}: ${m.title ?? ''} ${m.message ?? m.error ?? ''}`.trim().slice(0, 300)));
      break;
    }
    default: break;
  }
}

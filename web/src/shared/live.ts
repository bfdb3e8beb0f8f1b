/**
 * A call's live stream in the browser: GET /v1/calls/<id>/stream over WebSocket. The token travels as the
 * subprotocol `bearer.<token>` beside `voicecall.v1` (a browser cannot set Authorization on a WebSocket, and a
 * token in the URL would end up in logs and history). Like the client library's listener, it resumes after
 * the last seq it delivered, so each item arrives once and in order, and stops when the call ended.
 */
import type { LiveItem } from '../../../src/client/types.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'expired' | 'failed' | 'closed';

export interface LiveHandlers {
  item(item: LiveItem): void;
  state(state: LiveState): void;
}

const MAX_ATTEMPTS = 8;

export class LiveStream {
  lastSeq = 0;
  #ws?: WebSocket;
  #attempt = 0;
  #done = false;
  #timer?: ReturnType<typeof setTimeout>;

  constructor(private url: string, private token: string, private on: LiveHandlers) {
    this.#connect();
  }

  close(): void {
    this.#finish('closed');
  }

  /** Asks the service to hand the call to a human (stream message; confirmed by a 'transfer' item). */
  transfer(target?: string): boolean {
    if (this.#ws?.readyState !== WebSocket.OPEN) return false;
    this.#ws.send(JSON.stringify(target ? { type: 'transfer', target } : { type: 'transfer' }));
    return true;
  }

  #connect(): void {
    if (this.#done) return;
    this.on.state(this.#attempt ? 'reconnecting' : 'connecting');
    const ws = new WebSocket(`${this.url}?after_seq=${this.lastSeq}`, ['voicecall.v1', `bearer.${this.token}`]);
    this.#ws = ws;
    ws.onopen = () => { this.#attempt = 0; this.on.state('live'); };
    ws.onmessage = (ev) => {
      let msg: LiveItem | { type: 'error' };
      try { msg = JSON.parse(String(ev.data)); } catch { return; }
      if (msg.type === 'error' || typeof (msg as LiveItem).seq !== 'number') return;
      const item = msg as LiveItem;
      if (item.seq <= this.lastSeq) return;
      this.lastSeq = item.seq;
      this.on.item(item);
    };
    ws.onclose = (ev) => {
      if (this.#ws !== ws || this.#done) return;
      if (ev.code === 1000 && ev.reason === 'call_ended') return this.#finish('ended');
      if (ev.code === 4001) return this.#finish('expired');
      // A refused upgrade (401/404) looks like any network failure to a page: give up after a few tries.
      if (++this.#attempt > MAX_ATTEMPTS) return this.#finish('failed');
      const delay = Math.min(10_000, 250 * 2 ** (this.#attempt - 1)) * (0.5 + Math.random() / 2);
      this.on.state('reconnecting');
      this.#timer = setTimeout(() => this.#connect(), delay);
    };
  }

  #finish(state: LiveState): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#timer);
    const ws = this.#ws;
    if (ws && ws.readyState <= WebSocket.OPEN) ws.close(1000);
    this.on.state(state);
  }
}

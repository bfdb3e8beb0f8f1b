/**
 * One call's live feed on this edge: a single bus subscription shared by every local listener of the call.
 * It emits items strictly in seq order with no gap: an item that arrives ahead of its predecessor (several
 * publishing instances, or a message lost while Redis was away) makes it read the missing ones from storage.
 * Each item is serialised and framed once here and the same bytes go to every listener.
 */
import type { Bus } from '../bus/bus.js';
import type { Logger } from '../log.js';
import type { CallEventStore } from './event_store.js';
import { callChannel } from './sink.js';
import type { CallEventMessage } from './types.js';
import { textFrame } from './frame.js';

/** `payload`: the item's JSON; `frame`: the complete WebSocket text frame carrying it; both shared by every listener */
export interface FeedItem { seq: number; message: CallEventMessage; payload: Buffer; frame: Buffer }
export type FeedSubscriber = (item: FeedItem) => void;

export class CallFeed {
  /** highest seq emitted (or known to be stored when the feed started) */
  lastSeq = 0;
  readonly ready: Promise<void>;
  #subscribers = new Set<FeedSubscriber>();
  #pending: CallEventMessage[] = [];
  #catchUpWanted = false;
  #draining = false;
  #started = false;
  #unsubscribe?: () => void;
  #closed = false;

  /** @param onFanout told how long writing one item to every local listener took, ms (edge statistics) */
  constructor(readonly callId: string, private store: CallEventStore, private bus: Bus, private log: Logger,
    private onFanout: (listeners: number, ms: number) => void = () => {}) {
    this.ready = this.#start();
    this.ready.catch(() => {});
  }

  async #start(): Promise<void> {
    // Subscribe before reading the high-water mark: whatever is published from here on reaches us.
    this.#unsubscribe = await this.bus.subscribe(callChannel(this.callId), (m) => this.#onMessage(m as CallEventMessage));
    if (this.#closed) { this.#unsubscribe(); return; }
    this.lastSeq = await this.store.lastSeq(this.callId);
    this.#started = true;
    this.#drain();
  }

  add(s: FeedSubscriber): void { this.#subscribers.add(s); }
  remove(s: FeedSubscriber): void { this.#subscribers.delete(s); }
  get size(): number { return this.#subscribers.size; }

  /** After a bus outage: read from storage whatever was stored after the last emitted item. */
  catchUp(): void {
    this.#catchUpWanted = true;
    this.#drain();
  }

  close(): void {
    this.#closed = true;
    this.#subscribers.clear();
    this.#unsubscribe?.();
  }

  #onMessage(m: CallEventMessage): void {
    if (this.#closed || typeof m?.seq !== 'number' || m.call_id !== this.callId) return;
    this.#pending.push(m);
    this.#drain();
  }

  #drain(): void {
    if (!this.#started || this.#draining || this.#closed) return;
    this.#draining = true;
    this.#drainLoop().then(() => {
      this.#draining = false;
      // Items that arrived while the loop was settling found it busy: run again for them.
      if (this.#pending.length || this.#catchUpWanted) this.#drain();
    }, (err) => {
      this.#draining = false;
      this.log.warn({ err, call_id: this.callId }, 'live feed could not read storage; retrying in 1 s');
      setTimeout(() => this.#drain(), 1000).unref();
    });
  }

  async #drainLoop(): Promise<void> {
    while (!this.#closed && (this.#pending.length || this.#catchUpWanted)) {
      if (this.#catchUpWanted) {
        this.#catchUpWanted = false;
        await this.#fillFromStorage();
        continue;
      }
      this.#pending.sort((a, b) => a.seq - b.seq);
      const m = this.#pending.shift()!;
      if (m.seq <= this.lastSeq) continue;
      if (m.seq === this.lastSeq + 1) { this.#emit(m); continue; }
      // A gap: the missing items are already stored (stored before published, seqs allocated in commit order).
      this.#pending.unshift(m);
      await this.#fillFromStorage();
      if (this.#pending[0]?.seq === m.seq && m.seq > this.lastSeq + 1) {
        // Storage does not have them (should not happen): skip ahead rather than stall the feed.
        this.log.warn({ call_id: this.callId, from: this.lastSeq + 1, to: m.seq - 1 }, 'live items missing from storage');
        this.#pending.shift();
        this.#emit(m);
      }
    }
  }

  async #fillFromStorage(): Promise<void> {
    for (;;) {
      const page = await this.store.after(this.callId, this.lastSeq, 1000);
      for (const m of page) if (m.seq > this.lastSeq && !this.#closed) this.#emit(m);
      if (page.length < 1000) return;
    }
  }

  #emit(m: CallEventMessage): void {
    this.lastSeq = m.seq;
    const payload = Buffer.from(JSON.stringify(m));
    const item: FeedItem = { seq: m.seq, message: m, payload, frame: textFrame(payload) };
    const t0 = performance.now();
    for (const s of this.#subscribers) s(item);
    this.onFanout(this.#subscribers.size, performance.now() - t0);
  }
}

/**
 * deps.callEvents: stores each live item (next per-call seq) and then publishes it on the bus channel
 * `call:<id>`. Within one process the items of a call are stored and published in seq order (a per-call
 * chain), so edges rarely see reordering; edges still repair gaps from storage (several instances, bus loss).
 * A bus failure never fails the call: the item is stored, and edges catch up from storage when the bus returns.
 * A database outage does not lose it either: it is kept (bounded) and stored and published when the database
 * returns, after the call's earlier items (src/db/outage.ts).
 */
import type { Bus } from '../bus/bus.js';
import { Batcher, maxBatchFor } from '../db/batcher.js';
import type { OutageBuffer } from '../db/outage.js';
import type { Logger } from '../log.js';
import type { AppendItem, CallEventStore } from './event_store.js';
import type { CallEventInput, CallEventMessage, CallEventSink } from './types.js';

export const callChannel = (callId: string) => `call:${callId}`;
/** The outage buffer's ordering key of a call's writes (its items, and the runner's final status move). */
export const callKey = (callId: string) => `call:${callId}`;

export class StoredCallEventSink implements CallEventSink {
  /** call id -> tail of that call's publish chain */
  #tails = new Map<string, Promise<unknown>>();
  /** Items of many calls stored by one statement and one commit when they arrive together (group commit). */
  readonly #appends: Batcher<AppendItem, CallEventMessage>;

  constructor(store: CallEventStore, private bus: Bus, private log: Logger, dbKind: 'postgres' | 'pglite' = 'postgres',
    /** keeps items through a database outage, stored and published in order when it ends (src/db/outage.ts) */
    private readonly outage?: OutageBuffer) {
    this.#appends = new Batcher<AppendItem, CallEventMessage>((items) => store.appendMany(items),
      { maxBatch: maxBatchFor(dbKind, 200), maxInFlight: 2, key: (i) => i.callId });
  }

  publish(tenantId: string, callId: string, event: CallEventInput): Promise<CallEventMessage> {
    const append = () => this.#appends.push({ tenantId, callId, event });
    // Handed to the outage buffer at once (not after the chain): it counts toward the buffer's bound and keeps
    // the call's order itself; the chain then publishes in that order.
    const stored = this.outage ? this.outage.keep(callKey(callId), append) : undefined;
    stored?.catch(() => {});
    return this.#chain(callId, async () => {
      const msg = await (stored ?? append());
      this.#send(msg);
      return msg;
    });
  }

  announce(msg: CallEventMessage): void {
    void this.#chain(msg.call_id, async () => { this.#send(msg); return msg; }).catch(() => {});
  }

  settled(callId: string): Promise<void> {
    // in an outage the buffer itself runs the call's writes in order (items, then the status move): no wait
    if (this.outage?.down) return Promise.resolve();
    return (this.#tails.get(callId) ?? Promise.resolve()).then(() => {});
  }

  /**
   * Issued (not awaited) in order: ioredis keeps command order on its connection; a slow or absent Redis must
   * not hold the call's pipeline.
   */
  #send(msg: CallEventMessage): void {
    this.bus.publish(callChannel(msg.call_id), msg).catch((err: unknown) =>
      this.log.warn({ err, call_id: msg.call_id, seq: msg.seq }, 'live item stored but not published; edges will catch up'));
  }

  /** Runs `step` after the call's earlier steps on this process (per-call order of store and publish). */
  #chain(callId: string, step: () => Promise<CallEventMessage>): Promise<CallEventMessage> {
    const prev = this.#tails.get(callId) ?? Promise.resolve();
    const run = prev.then(step);
    const tail = run.catch(() => {});
    this.#tails.set(callId, tail);
    void tail.then(() => { if (this.#tails.get(callId) === tail) this.#tails.delete(callId); });
    return run;
  }
}

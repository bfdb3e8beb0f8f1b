/**
 * Group commit for hot write paths: items pushed while a batch is in flight wait and go together in the next
 * one, so under load N writes cost one round trip and one commit instead of N, and at low load an item goes at
 * once (no timer, no added latency); under load a path may also linger a little for more items (lingerMs). A
 * batch holds at most one item per key (two appends to one call's counter row cannot share a statement); later
 * items of that key wait for a later batch, in order, which does not start while a batch holding that key is in
 * flight (two racing statements could apply them in either order). When a batch of several fails as a whole,
 * each item is retried alone, so one bad item fails only itself.
 */
/**
 * The batch size cap for a backend: PGlite runs each statement on the event loop's own thread, so its batches
 * stay small (a long statement there stalls every call's media); PostgreSQL runs them elsewhere.
 */
export function maxBatchFor(kind: 'postgres' | 'pglite', onPostgres: number): number {
  return kind === 'pglite' ? Math.min(16, onPostgres) : onPostgres;
}

/**
 * The linger (BatcherOptions.lingerMs) of the write paths a request waits for: lead creation and dispatches. At a
 * steady 1,500 requests/s on two cores it cut CPU per request by a tenth (service) and a sixth (PostgreSQL), and
 * that contention, not the millisecond, is what decided their p99 (bench/leads_http.bench.ts, alternating runs).
 */
export const REQUEST_WRITE_LINGER_MS = 1;

interface Pending<I, O> { item: I; key: string; resolve: (o: O) => void; reject: (e: unknown) => void }

export interface BatcherOptions<I> {
  /** the most items in one batch */
  maxBatch: number;
  /** batches in flight at once (each holds a pooled connection while it runs) */
  maxInFlight: number;
  /** items with equal keys never share a batch, nor run in two batches at once: they go in push order */
  key?: (item: I) => string;
  /**
   * Under load (the last batch carried more than one item), a batch that could start with fewer than maxBatch
   * items first waits this long for more. Each statement and commit has a fixed cost (executor start-up, plan,
   * commit record, round trip, result parsing) that small batches pay per few items, so fewer, larger batches
   * do the same work with less CPU, and on a loaded machine that CPU is what queues requests. A lone item (the
   * last batch had one) never waits. 0 or unset: no waiting.
   */
  lingerMs?: number;
}

export class Batcher<I, O> {
  readonly #queue: Pending<I, O>[] = [];
  #inFlight = 0;
  /** keys of the items in flight (with `key`: each in one batch at most) */
  readonly #keysInFlight = new Set<string>();
  /** the last batch carried more than one item: the next may linger */
  #underLoad = false;
  /** the wait of the next batch (lingerMs), while it lasts */
  #linger: NodeJS.Timeout | undefined;

  /** `run` answers every item of a batch, in order (an Error element fails that item only). */
  constructor(private readonly run: (items: I[]) => Promise<Array<O | Error>>, private readonly o: BatcherOptions<I>) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, key: this.o.key?.(item) ?? '', resolve, reject });
      this.#pump();
    });
  }

  /** Items waiting or in flight (tests and shutdown). */
  get busy(): boolean { return this.#inFlight > 0 || this.#queue.length > 0; }

  #pump(): void {
    if (this.#linger) {
      if (this.#queue.length < this.o.maxBatch) return; // the timer starts the next batch
      clearTimeout(this.#linger); // a full batch goes at once
      this.#linger = undefined;
    }
    while (this.#inFlight < this.o.maxInFlight && this.#queue.length) {
      if (this.o.lingerMs && this.#underLoad && this.#queue.length < this.o.maxBatch) {
        this.#underLoad = false; // one wait per batch
        this.#linger = setTimeout(() => { this.#linger = undefined; this.#pump(); }, this.o.lingerMs);
        return;
      }
      const batch = this.#take();
      if (!batch.length) return; // all that waits shares a key with a batch in flight
      this.#underLoad = batch.length > 1;
      this.#inFlight += 1;
      if (this.o.key) for (const p of batch) this.#keysInFlight.add(p.key);
      void this.#settle(batch).finally(() => {
        this.#inFlight -= 1;
        if (this.o.key) for (const p of batch) this.#keysInFlight.delete(p.key);
        this.#pump();
      });
    }
  }

  /** The oldest items, at most one per key and none of a key in flight, leaving the others queued in their order. */
  #take(): Pending<I, O>[] {
    if (!this.o.key) return this.#queue.splice(0, this.o.maxBatch);
    const batch: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < this.#queue.length && batch.length < this.o.maxBatch;) {
      const p = this.#queue[i];
      if (keys.has(p.key) || this.#keysInFlight.has(p.key)) { i += 1; continue; }
      keys.add(p.key);
      batch.push(p);
      this.#queue.splice(i, 1);
    }
    return batch;
  }

  async #settle(batch: Pending<I, O>[]): Promise<void> {
    let outs: Array<O | Error>;
    try {
      outs = await this.run(batch.map((p) => p.item));
    } catch (err) {
      if (batch.length === 1) { batch[0].reject(err); return; }
      for (const p of batch) await this.#settle([p]);
      return;
    }
    batch.forEach((p, i) => {
      const out = outs[i];
      if (out instanceof Error) p.reject(out); else if (out === undefined) p.reject(new Error('batch returned no result for an item')); else p.resolve(out);
    });
  }
}

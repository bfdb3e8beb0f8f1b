/**
 * One timer for every paced stream in the process (agent playout, simulated callees): a per-stream interval
 * would mean 500 timers at 50 Hz. Subscribers get called every `periodMs`; they compute their own position
 * from the wall clock, so a late tick never drifts anyone.
 */
export class Ticker {
  readonly #subs = new Set<() => void>();
  #timer?: NodeJS.Timeout;
  constructor(readonly periodMs: number) {}

  add(fn: () => void): () => void {
    this.#subs.add(fn);
    if (!this.#timer) {
      this.#timer = setInterval(() => { for (const f of [...this.#subs]) f(); }, this.periodMs);
      this.#timer.unref();
    }
    return () => {
      this.#subs.delete(fn);
      if (!this.#subs.size && this.#timer) { clearInterval(this.#timer); this.#timer = undefined; }
    };
  }

  get size(): number { return this.#subs.size; }
}

const shared = new Map<number, Ticker>();
/** The process's ticker of this period: every paced stream (playout, simulated callees) shares its timer. */
export function sharedTicker(periodMs: number): Ticker {
  let t = shared.get(periodMs);
  if (!t) shared.set(periodMs, (t = new Ticker(periodMs)));
  return t;
}

/** The period that paces 20 ms frames at `timeScale` times real time (1-20 ms). */
export const tickerPeriodFor = (timeScale: number): number => Math.max(1, Math.min(20, Math.floor(20 / timeScale)));

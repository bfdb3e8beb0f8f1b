/**
 * The ears thread's task queue: live turns' steps (100 ms of audio, a turn's close) go before whole hearings (seconds
 * of audio each). In one first-in-first-out queue, a live turn's end waited behind other calls' whole hearings with
 * its decoder held, so the next turns found no decoder free and were heard whole too (bench/README.md). Steps of one
 * turn stay in order: a stream sends its next step only once the one before is done.
 */
import { queueOptionsSymbol, type TaskQueue } from 'piscina';

type Queued = Parameters<TaskQueue['push']>[0];

/** Queue options of a task that goes before the others (`pool.run({ ...task, ...LIVE_FIRST })`). */
export const LIVE_FIRST = { [queueOptionsSymbol]: { first: true } };

const goesFirst = (task: Queued): boolean => (task[queueOptionsSymbol] as { first?: boolean } | null)?.first === true;

export class LiveFirstQueue implements TaskQueue {
  readonly #first: Queued[] = [];
  readonly #rest: Queued[] = [];

  get size(): number { return this.#first.length + this.#rest.length; }

  push(task: Queued): void { (goesFirst(task) ? this.#first : this.#rest).push(task); }

  shift(): Queued | null { return this.#first.shift() ?? this.#rest.shift() ?? null; }

  remove(task: Queued): void {
    for (const queue of [this.#first, this.#rest]) {
      const at = queue.indexOf(task);
      if (at >= 0) { queue.splice(at, 1); return; }
    }
  }
}

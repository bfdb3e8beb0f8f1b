/**
 * Deadline and cancellation for adapter calls, in one place (GUIDE habit 7): a timeout rejects with
 * AdapterError('timeout'), an abort with AdapterError('canceled'), and nothing is emitted after either.
 */
import { AdapterError, type AdapterCallOptions } from './types.js';

type AdapterName = AdapterError['adapter'];

/** Any failure as an AdapterError; a plain Error from an implementation becomes 'failed'. */
export function asAdapterError(adapter: AdapterName, err: unknown): AdapterError {
  if (err instanceof AdapterError) return err;
  const e = new AdapterError(adapter, 'failed', err instanceof Error ? err.message : String(err));
  (e as { cause?: unknown }).cause = err;
  return e;
}

/**
 * When each signal made by deadlineSignal fires at the latest (performance.now() time; Infinity: no deadline).
 * An adapter call made under such a signal with no earlier deadline of its own (an implementation wrapped by
 * withDefaultTimeouts, whose wrapper passes its signal and the same timeout on) needs no second controller,
 * timer and listeners: the outer withDeadline already stops it at that deadline or on the caller's abort.
 */
const deadlineOf = new WeakMap<AbortSignal, number>();

/** A signal that fires on the caller's abort or after timeoutMs, with the reason as an AdapterError. */
export function deadlineSignal(adapter: AdapterName, opts: AdapterCallOptions = {}): { signal: AbortSignal; dispose(): void } {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(new AdapterError(adapter, 'canceled', `${adapter} call canceled`));
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timeoutMs = opts.timeoutMs !== undefined && opts.timeoutMs > 0 ? opts.timeoutMs : undefined;
  const timer = timeoutMs !== undefined
    ? setTimeout(() => ctl.abort(new AdapterError(adapter, 'timeout', `${adapter} call exceeded ${timeoutMs} ms`)), timeoutMs)
    : undefined;
  timer?.unref?.();
  deadlineOf.set(ctl.signal, timeoutMs === undefined ? Infinity : performance.now() + timeoutMs);
  return {
    signal: ctl.signal,
    dispose() {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      deadlineOf.delete(ctl.signal); // it fires no more: a call still made under it must keep its own deadline
    },
  };
}

/** Whether `opts` adds nothing to the deadline and abort already enforced on its signal (see deadlineOf). */
function coveredByOuterDeadline(opts: AdapterCallOptions | undefined): opts is AdapterCallOptions & { signal: AbortSignal } {
  if (!opts?.signal || opts.signal.aborted) return false;
  const outer = deadlineOf.get(opts.signal);
  if (outer === undefined) return false;
  return opts.timeoutMs === undefined || opts.timeoutMs <= 0 || performance.now() + opts.timeoutMs >= outer;
}

/**
 * Runs `work` under the deadline: rejects as soon as the signal fires, even if `work` ignores it. Nested under
 * another withDeadline that already enforces this deadline and abort, `work` runs under that signal directly.
 */
export async function withDeadline<T>(adapter: AdapterName, opts: AdapterCallOptions | undefined,
  work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (coveredByOuterDeadline(opts)) {
    try {
      return await work(opts.signal);
    } catch (err) {
      throw asAdapterError(adapter, opts.signal.aborted ? opts.signal.reason : err);
    }
  }
  const d = deadlineSignal(adapter, opts);
  try {
    if (d.signal.aborted) throw d.signal.reason;
    return await new Promise<T>((resolve, reject) => {
      d.signal.addEventListener('abort', () => reject(d.signal.reason), { once: true });
      work(d.signal).then(resolve, reject);
    });
  } catch (err) {
    throw asAdapterError(adapter, err);
  } finally {
    d.dispose();
  }
}

/**
 * Wraps a stream so it stops on abort or timeout (throwing the AdapterError) and never yields after it.
 * For streams timeoutMs bounds the wait for EACH next item, not the whole stream: a consumer that pulls at
 * playback pace (11 s of speech) must not be cut off, while a producer that stalls is.
 */
export async function* streamWithDeadline<T>(adapter: AdapterName, opts: AdapterCallOptions | undefined,
  make: (signal: AbortSignal) => AsyncIterable<T>): AsyncGenerator<T> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(new AdapterError(adapter, 'canceled', `${adapter} call canceled`));
  if (opts?.signal?.aborted) onAbort();
  else opts?.signal?.addEventListener('abort', onAbort, { once: true });
  const stopped = new Promise<never>((_, reject) => {
    if (ctl.signal.aborted) reject(ctl.signal.reason);
    ctl.signal.addEventListener('abort', () => reject(ctl.signal.reason), { once: true });
  });
  stopped.catch(() => {});
  const timeoutMs = opts?.timeoutMs !== undefined && opts.timeoutMs > 0 ? opts.timeoutMs : undefined;
  let it: AsyncIterator<T> | undefined;
  try {
    if (ctl.signal.aborted) throw ctl.signal.reason;
    it = make(ctl.signal)[Symbol.asyncIterator]();
    while (true) {
      const timer = timeoutMs === undefined ? undefined
        : setTimeout(() => ctl.abort(new AdapterError(adapter, 'timeout', `${adapter} produced nothing for ${timeoutMs} ms`)), timeoutMs);
      let r: IteratorResult<T>;
      try {
        r = await Promise.race([it.next(), stopped]);
      } finally {
        clearTimeout(timer);
      }
      if (ctl.signal.aborted) throw ctl.signal.reason;
      if (r.done) return;
      yield r.value;
    }
  } catch (err) {
    throw asAdapterError(adapter, ctl.signal.aborted ? ctl.signal.reason : err);
  } finally {
    opts?.signal?.removeEventListener('abort', onAbort);
    void it?.return?.()?.catch?.(() => {});
  }
}

/**
 * Resolves after ms, or rejects with the signal's reason when it fires first. `unref`: the timer alone does not
 * keep the process alive (a wait that a shutdown ends through `signal` anyway).
 */
export function sleep(ms: number, signal?: AbortSignal, opts?: { unref?: boolean }): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    if (opts?.unref) timer.unref();
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Aborts `target` `graceMs` after `signal` aborts (not at once): a request that creates something at a provider
 * (a carrier's call) gets to answer with its id after a hang-up, so what it created can be canceled.
 * Returns the disposer that clears the pending abort.
 */
export function abortAfterGrace(signal: AbortSignal | undefined, graceMs: number, target: AbortController): () => void {
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => { timer = setTimeout(() => target.abort(signal!.reason), graceMs); };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return () => { clearTimeout(timer); signal?.removeEventListener('abort', onAbort); };
}

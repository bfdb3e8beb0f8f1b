/**
 * The retry policy of every outbound provider request, in one place: the server's wait (retry-after-ms, else
 * Retry-After in seconds or as an HTTP date), else a doubling back-off with jitter; only failures marked
 * `AdapterError.retryable` are tried again, only a few times, never for a wait longer than the caller can bear
 * (maxWaitMs) nor past its deadline, and an abort ends a wait at once.
 */
import { sleep } from '../../adapters/deadline.js';
import { AdapterError } from '../../adapters/types.js';

type HeaderSource = Pick<Headers, 'get'>;

/** The server's requested wait in ms (retry-after-ms, then retry-after); undefined when absent or unreadable. */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const msText = headers.get('retry-after-ms');
  const ms = Number(msText);
  if (msText !== null && msText.trim() !== '' && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  const seconds = Number(ra);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export interface Backoff {
  /** the first wait, ms (doubles per try); default 500 */
  baseMs?: number;
  /** no wait longer than this, ms; default 8000 */
  capMs?: number;
  /** up to this share is taken off at random (0.25: 75-100 % of the wait), so clients do not retry in step; default 0.25 */
  jitter?: number;
}

/** The wait before try `attempt` + 1 (attempt 0 = the first failure): base·2^attempt, capped, less the jitter. */
export function backoffMs(attempt: number, b: Backoff = {}): number {
  const raw = Math.min((b.baseMs ?? 500) * 2 ** attempt, b.capMs ?? 8000);
  return raw * (1 - Math.random() * (b.jitter ?? 0.25));
}

/** The server's wait when it gave one, else the back-off. */
export const retryWaitMs = (headers: HeaderSource, attempt: number, now = Date.now(), b?: Backoff): number =>
  retryAfterMs(headers, now) ?? backoffMs(attempt, b);

export interface RetryPolicy extends Backoff {
  /** tries in all, the first included */
  attempts: number;
  /** a wait longer than this is not made: the failure is final (the caller's fallback answers sooner), ms */
  maxWaitMs?: number;
  /** performance.now() time after which no retry starts */
  deadlineAt?: number;
  signal?: AbortSignal;
}

/** A failure that carries the server's requested wait (an HTTP answer's Retry-After). */
export interface WaitHint { retryAfterMs?: number }

/**
 * Whether to try again after `err` failed try `attempt` (0-based), and after how long: undefined = give up (not
 * retryable, no tries left, a wait too long or past the deadline, or the caller aborted).
 */
export function nextRetryMs(err: unknown, attempt: number, p: RetryPolicy): number | undefined {
  if (!(err instanceof AdapterError) || !err.retryable || p.signal?.aborted) return undefined;
  if (attempt + 1 >= p.attempts) return undefined;
  const wait = (err as WaitHint).retryAfterMs ?? backoffMs(attempt, p);
  if (wait > (p.maxWaitMs ?? Infinity)) return undefined;
  if (p.deadlineAt !== undefined && performance.now() + wait >= p.deadlineAt) return undefined;
  return wait;
}

/** Waits `ms`; an abort meanwhile throws `canceled()`. */
export async function pause(ms: number, signal: AbortSignal | undefined, canceled: () => Error): Promise<void> {
  try { await sleep(ms, signal); } catch { throw canceled(); }
}

/** Runs `attempt` until it succeeds or nextRetryMs says stop; the last failure is thrown as it is. */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, p: RetryPolicy & { canceled: () => Error }): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const wait = nextRetryMs(err, n, p);
      if (wait === undefined) throw err;
      await pause(wait, p.signal, p.canceled);
    }
  }
}

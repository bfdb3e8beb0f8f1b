/**
 * One HTTP request with the OpenAI client's retry rules (openai-node v6 src/client.ts): 408, 409, 429 and 5xx and
 * connection failures are retried unless `x-should-retry: false`; the wait is `retry-after-ms`, else `retry-after`
 * (seconds or an HTTP date), else 0.5 s * 2^n capped at 8 s with up to 25 % jitter. A wait that would pass the
 * caller's deadline is not taken: the error is returned at once, so a turn falls back instead of hanging.
 */
import { sleep } from '../../adapters/deadline.js';
import { AdapterError } from '../../adapters/types.js';

export interface RetryPolicy {
  maxRetries: number;
  /** performance.now() time after which no retry is started (Infinity: none) */
  deadlineAt: number;
  signal: AbortSignal;
}

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 409 || s === 429 || s >= 500;

/** The server's requested wait in ms, from retry-after-ms or retry-after; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null) return undefined;
  const seconds = Number(ra);
  if (ra.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const backoffMs = (attempt: number) => Math.min(500 * 2 ** attempt, 8000) * (1 - Math.random() * 0.25);

/** The error body's message (OpenAI: {error:{message}}), trimmed: never the request, which may carry keys. */
async function errorDetail(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const msg = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof msg === 'string') return msg.slice(0, 200);
  } catch { /* not JSON: the raw text below */ }
  return text.slice(0, 200);
}

function statusError(status: number, detail: string): AdapterError {
  const what = `transcription endpoint answered ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 401 || status === 403) return new AdapterError('stt', 'failed', `${what} (check OPENAI_API_KEY)`, false);
  if (status === 400 || status === 404 || status === 413 || status === 415 || status === 422) return new AdapterError('stt', 'invalid', what, false);
  if (RETRYABLE_STATUS(status)) return new AdapterError('stt', 'unavailable', what);
  return new AdapterError('stt', 'failed', what, false);
}

/** Sends the request (built afresh per attempt: a body stream is used once) and returns the first 2xx response. */
export async function fetchWithRetry(url: string, init: () => RequestInit, policy: RetryPolicy): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    let res: Response | undefined;
    let failure: AdapterError;
    try {
      res = await fetch(url, { ...init(), signal: policy.signal });
    } catch (err) {
      if (policy.signal.aborted) throw policy.signal.reason;
      failure = new AdapterError('stt', 'unavailable', `transcription endpoint unreachable: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`);
    }
    if (res?.ok) return res;
    let waitMs = backoffMs(attempt);
    if (res) {
      failure = statusError(res.status, await errorDetail(res));
      const shouldRetry = res.headers.get('x-should-retry');
      if (shouldRetry === 'false' || (shouldRetry !== 'true' && !RETRYABLE_STATUS(res.status))) throw failure;
      waitMs = retryAfterMs(res.headers) ?? waitMs;
    }
    if (attempt >= policy.maxRetries || performance.now() + waitMs >= policy.deadlineAt) throw failure!;
    await sleep(waitMs, policy.signal);
  }
}

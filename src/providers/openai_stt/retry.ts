/**
 * The transcription request with OpenAI's retry rules (src/providers/http/openai.ts): a wait that would pass the
 * caller's deadline is not taken, so a turn falls back instead of hanging. A bad key or request is final.
 */
import type { AdapterError } from '../../adapters/types.js';
import { fetchOpenAi } from '../http/openai.js';

export interface RetryPolicy {
  maxRetries: number;
  /** performance.now() time after which no retry is started (Infinity: none) */
  deadlineAt: number;
  signal: AbortSignal;
}

function codeOf(status: number): AdapterError['code'] {
  return status === 400 || status === 404 || status === 413 || status === 415 || status === 422 ? 'invalid' : 'failed';
}

/** Sends the request (built afresh per attempt) and returns the first 2xx response. */
export function fetchWithRetry(url: string, init: () => RequestInit, policy: RetryPolicy & { apiKey?: string }): Promise<Response> {
  return fetchOpenAi({ adapter: 'stt', what: 'transcription endpoint', apiKey: policy.apiKey, codeOf }, url, init,
    { attempts: policy.maxRetries + 1, deadlineAt: policy.deadlineAt, signal: policy.signal });
}

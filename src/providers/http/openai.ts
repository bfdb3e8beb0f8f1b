/**
 * The retry rules of OpenAI-compatible servers, shared by transcription and chat (the openai package's rules):
 * 408, 409, 429, 5xx and connection failures are retried unless the answer says `x-should-retry: false`
 * (`true` makes any status retryable); the wait is retry-after-ms, else Retry-After, else 0.5 s·2ⁿ capped at 8 s
 * with up to 25 % jitter. The error text is the server's message with any key it quotes redacted.
 */
import { AdapterError } from '../../adapters/types.js';
import { HttpError, errorDetail } from './errors.js';
import { retryAfterMs, withRetries, type RetryPolicy } from './retry.js';

type AdapterName = AdapterError['adapter'];

const RETRYABLE_STATUS = (s: number) => s === 408 || s === 409 || s === 429 || s >= 500;

export interface OpenAiEndpoint {
  adapter: AdapterName;
  /** how messages name the endpoint: 'transcription endpoint', 'dialog model' */
  what: string;
  /** OPENAI_API_KEY: redacted from every message */
  apiKey?: string;
  /** the error code a non-retryable status gets (transcription tells invalid requests apart; chat does not) */
  codeOf?(status: number): AdapterError['code'];
}

/** The failure an answer that is not 2xx means, classified by the status and x-should-retry. */
export async function openAiFailure(e: OpenAiEndpoint, res: Response): Promise<HttpError> {
  const detail = errorDetail(await res.text().catch(() => ''), [e.apiKey]);
  const header = res.headers.get('x-should-retry');
  const retryable = header === 'true' || (header !== 'false' && RETRYABLE_STATUS(res.status));
  const code = RETRYABLE_STATUS(res.status) ? 'unavailable' : e.codeOf?.(res.status) ?? 'failed';
  const hint = res.status === 401 || res.status === 403 ? ' (check OPENAI_API_KEY)' : '';
  return new HttpError(e.adapter, code, `${e.what} answered ${res.status}${detail ? `: ${detail}` : ''}${hint}`, res.status, retryAfterMs(res.headers), retryable);
}

/** A request that got no answer: retryable (the openai package retries connection failures). */
export function openAiUnreachable(e: OpenAiEndpoint, err: unknown): AdapterError {
  const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
  return new AdapterError(e.adapter, 'unavailable', `${e.what} unreachable: ${cause}`);
}

/**
 * Sends the request (built afresh per try: a body stream is used once) and returns the first 2xx response; the
 * retries stop at the policy's tries, its longest wait and its deadline.
 */
export function fetchOpenAi(e: OpenAiEndpoint, url: string, init: () => RequestInit, policy: RetryPolicy & { signal: AbortSignal }): Promise<Response> {
  const canceled = () => new AdapterError(e.adapter, 'canceled', `${e.what} request canceled`);
  return withRetries(async () => {
    let res: Response;
    try {
      res = await fetch(url, { ...init(), signal: policy.signal });
    } catch (err) {
      if (policy.signal.aborted) throw policy.signal.reason instanceof AdapterError ? policy.signal.reason : canceled();
      throw openAiUnreachable(e, err);
    }
    if (res.ok) return res;
    throw await openAiFailure(e, res);
  }, { ...policy, canceled: () => (policy.signal.reason instanceof AdapterError ? policy.signal.reason : canceled()) });
}

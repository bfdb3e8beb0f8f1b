/**
 * One outbound HTTP exchange with a provider over fetch, and the same with the retries the provider allows. Any
 * HTTP answer resolves (error statuses included: the caller maps them onto its own outcome); a request that gets no
 * answer (refused, dropped, timed out) is an AdapterError, and an abort by the caller is 'canceled'. Retried, by
 * withRetries' policy: an answer that says "nothing was done, try again" (429, 503, a provider's own throttling
 * codes), a refused connection (the request never left), and for idempotent requests other 5xx and dropped
 * connections too. A create that may have happened is never sent twice.
 */
import { AdapterError } from '../../adapters/types.js';
import { HttpError, redactSecrets } from './errors.js';
import { retryAfterMs, withRetries, type RetryPolicy } from './retry.js';

type AdapterName = AdapterError['adapter'];

export interface HttpRequest {
  adapter: AdapterName;
  /** the provider, for messages */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** HTTP Basic user and password */
  basic?: readonly [string, string];
  body?: { json: unknown } | { form: URLSearchParams };
  signal?: AbortSignal;
  /** per try, ms */
  timeoutMs?: number;
  /** values that must never appear in an error (the provider's keys) */
  secrets?: ReadonlyArray<string | undefined>;
}

export interface HttpAnswer { status: number; headers: Headers; text: string; json?: unknown }

export interface RetryRules {
  /** repeating it cannot do the thing twice (a read, an upsert, a hang-up, a PATCH of known values) */
  idempotent: boolean;
  /** an answer that says "not done, try again" although its status is not 429/503 (a provider's throttling codes) */
  notActed?(a: HttpAnswer): boolean;
  policy: Omit<RetryPolicy, 'signal'>;
}

const refused = (err: unknown) => (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';

/** One try. `idempotent` says whether a dropped connection may be retried (the request may have been acted on). */
export async function sendOnce(r: HttpRequest, idempotent = false): Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', ...r.headers };
  if (r.basic) headers.authorization = `Basic ${Buffer.from(`${r.basic[0]}:${r.basic[1]}`).toString('base64')}`;
  let body: string | undefined;
  if (r.body && 'json' in r.body) { body = JSON.stringify(r.body.json); headers['content-type'] ??= 'application/json'; }
  else if (r.body) { body = r.body.form.toString(); headers['content-type'] ??= 'application/x-www-form-urlencoded'; }
  const signals = [...(r.timeoutMs ? [AbortSignal.timeout(r.timeoutMs)] : []), ...(r.signal ? [r.signal] : [])];
  let res: Response;
  try {
    res = await fetch(r.url, { method: r.method, headers, body, signal: signals.length ? AbortSignal.any(signals) : undefined });
  } catch (err) {
    if (r.signal?.aborted) throw new AdapterError(r.adapter, 'canceled', `${r.name} request canceled`);
    const why = (err as { cause?: Error }).cause?.message ?? (err as Error).name;
    const gone = refused(err);
    throw new AdapterError(r.adapter, 'unavailable', redactSecrets(`${r.name} unreachable: ${why}`, r.secrets), gone || idempotent);
  }
  const text = await res.text().catch(() => '');
  let json: unknown;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
  return { status: res.status, headers: res.headers, text, json };
}

/** The exchange with its retries; resolves with the last answer, whatever its status. */
export async function exchange(r: HttpRequest, rules: RetryRules): Promise<HttpAnswer> {
  let last: HttpAnswer | undefined;
  try {
    return await withRetries(async () => {
      const a = await sendOnce(r, rules.idempotent);
      const again = a.status === 429 || a.status === 503 || (rules.idempotent && a.status >= 500) || (rules.notActed?.(a) ?? false);
      if (!again) return a;
      last = a;
      throw new HttpError(r.adapter, 'unavailable', `${r.name} answered ${a.status}`, a.status, retryAfterMs(a.headers));
    }, { ...rules.policy, signal: r.signal, canceled: () => new AdapterError(r.adapter, 'canceled', `${r.name} request canceled`) });
  } catch (err) {
    if (err instanceof HttpError && last) return last; // out of tries (or a wait too long): the answer is the result
    throw err;
  }
}

export const trimBase = (url: string) => url.replace(/\/+$/, '');

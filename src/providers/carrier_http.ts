/**
 * One REST request to a carrier with fetch, and the retry the carriers allow: 429 (rate limit) and 503 (not
 * processed) are tried again after Retry-After (or 0.5 s, 1 s, ...), up to `attempts`; any other answer is
 * returned as it is, for the carrier to map onto a call outcome. A request that never reaches the carrier (refused,
 * timed out) is an AdapterError 'unavailable'.
 */
import { AdapterError } from '../adapters/types.js';
import { sleep } from '../adapters/deadline.js';

/** How long a hang-up waits for a carrier's answer to a create in flight, to cancel the call it made, ms. */
export const CREATE_ANSWER_GRACE_MS = 5000;

export interface CarrierHttpAnswer { status: number; text: string; json?: unknown }

export interface CarrierHttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** user:password for HTTP Basic */
  basic: [string, string];
  body?: { json: unknown } | { form: URLSearchParams };
  signal?: AbortSignal;
  /** per attempt, ms */
  timeoutMs?: number;
  /** total tries for 429/503 (1 = no retry) */
  attempts?: number;
}

const RETRYABLE = new Set([429, 503]);
const MAX_WAIT_MS = 10_000;

export function retryDelayMs(retryAfter: string | null, attempt: number): number {
  const s = Number(retryAfter);
  if (retryAfter && Number.isFinite(s)) return Math.min(MAX_WAIT_MS, Math.max(0, s * 1000));
  const at = retryAfter ? Date.parse(retryAfter) : NaN;
  if (Number.isFinite(at)) return Math.min(MAX_WAIT_MS, Math.max(0, at - Date.now()));
  return Math.min(MAX_WAIT_MS, 500 * 2 ** attempt);
}

export async function carrierRequest(r: CarrierHttpRequest): Promise<CarrierHttpAnswer> {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`${r.basic[0]}:${r.basic[1]}`).toString('base64')}`, accept: 'application/json' };
  let body: string | undefined;
  if (r.body && 'json' in r.body) { body = JSON.stringify(r.body.json); headers['content-type'] = 'application/json'; }
  else if (r.body) { body = r.body.form.toString(); headers['content-type'] = 'application/x-www-form-urlencoded'; }
  const attempts = r.attempts ?? 3;
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    const signals = [AbortSignal.timeout(r.timeoutMs ?? 10_000), ...(r.signal ? [r.signal] : [])];
    try {
      res = await fetch(r.url, { method: r.method, headers, body, signal: AbortSignal.any(signals) });
    } catch (err) {
      if (r.signal?.aborted) throw new AdapterError('carrier', 'canceled', 'request canceled');
      throw new AdapterError('carrier', 'unavailable', `carrier unreachable: ${(err as Error).name}`);
    }
    const text = await res.text().catch(() => '');
    if (RETRYABLE.has(res.status) && attempt + 1 < attempts) {
      await sleep(retryDelayMs(res.headers.get('retry-after'), attempt), r.signal).catch(() => {
        throw new AdapterError('carrier', 'canceled', 'request canceled');
      });
      continue;
    }
    let json: unknown;
    try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
    return { status: res.status, text, json };
  }
}

/** The carrier's own words for a refusal, short and single-line (kept on the call as its carrier status). */
export function refusalReason(status: number, message: string | undefined): string {
  const kind = status === 429 ? 'rate_limited' : status >= 500 ? 'carrier_unavailable' : status === 401 || status === 403 ? 'auth_rejected'
    : status === 404 ? 'not_found' : 'rejected';
  const m = (message ?? '').replace(/\s+/g, ' ').trim().slice(0, 140);
  return `${kind} (${status})${m ? `: ${m}` : ''}`;
}

/**
 * One REST request to a carrier (HTTP Basic, a JSON or form body, a JSON answer) through the shared outbound HTTP
 * helper (src/providers/http): 429 and 503 (nothing was done) are tried again after Retry-After, else 0.5 s, 1 s,
 * three tries in all, a wait of more than 10 s not made; other 5xx only for idempotent requests (a hang-up, an
 * update), never for a create that may have placed a call. Any other answer is returned as it is, for the carrier
 * to map onto a call outcome. A request that never reaches the carrier (refused, timed out) is an AdapterError
 * 'unavailable'; an abort is 'canceled'.
 */
import { errorDetail } from '../providers/http/errors.js';
import { exchange, type HttpAnswer } from '../providers/http/request.js';
import type { CarrierName } from './contract.js';

/** How long a hang-up waits for a carrier's answer to a create in flight, to cancel the call it made, ms. */
export const CREATE_ANSWER_GRACE_MS = 5000;

export type CarrierHttpAnswer = HttpAnswer;

export interface CarrierHttpRequest {
  carrier: CarrierName;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** user:password for HTTP Basic (the password is never written into an error) */
  basic: readonly [string, string];
  body?: { json: unknown } | { form: URLSearchParams };
  signal?: AbortSignal;
  /** repeating it cannot do the thing twice (DELETE of a call, a status update) */
  idempotent?: boolean;
  /** an answer the carrier documents as "nothing done, try again" although its status is not 429/503 */
  notActed?(a: CarrierHttpAnswer): boolean;
  /** per try, ms (default 10 s) */
  timeoutMs?: number;
  /** tries in all for an answer that says "try again" (1 = no retry; default 3) */
  attempts?: number;
  /** first retry wait without a Retry-After, ms (doubles per try; default 500) */
  retryBaseMs?: number;
}

/** the longest wait a Retry-After may ask for: a longer one is not made, the refusal stands */
const MAX_WAIT_MS = 10_000;

export function carrierRequest(r: CarrierHttpRequest): Promise<CarrierHttpAnswer> {
  return exchange({ adapter: 'carrier', name: r.carrier, method: r.method, url: r.url, basic: r.basic, body: r.body, signal: r.signal,
    timeoutMs: r.timeoutMs ?? 10_000, secrets: [r.basic[1]] },
  { idempotent: r.idempotent ?? false, ...(r.notActed ? { notActed: r.notActed } : {}), policy: { attempts: r.attempts ?? 3, baseMs: r.retryBaseMs ?? 500, capMs: MAX_WAIT_MS, jitter: 0, maxWaitMs: MAX_WAIT_MS } });
}

/** The carrier's own words for a refusal, short and single-line (kept on the call as its carrier status). */
export function refusalReason(status: number, message: string | undefined): string {
  const kind = status === 429 ? 'rate_limited' : status >= 500 ? 'carrier_unavailable' : status === 401 || status === 403 ? 'auth_rejected'
    : status === 404 ? 'not_found' : 'rejected';
  const m = (message ?? '').replace(/\s+/g, ' ').trim().slice(0, 140);
  return `${kind} (${status})${m ? `: ${m}` : ''}`;
}

/** A refused request as the call's carrier status: the kind of refusal and the carrier's message (from its usual shapes). */
export const refusalOf = (a: CarrierHttpAnswer, r: Pick<CarrierHttpRequest, 'basic'>): string => refusalReason(a.status, errorDetail(a.text, [r.basic[1]], 140));

type SendOptions = Omit<CarrierHttpRequest, 'carrier' | 'method' | 'url' | 'basic' | 'body'> & { json?: unknown; form?: URLSearchParams };

/** A carrier's REST API: its root URL and credentials, and the defaults of its requests (retry pacing, its own "try again"). */
export class CarrierApi {
  readonly #root: string;
  constructor(readonly carrier: CarrierName, root: string, readonly basic: readonly [string, string], private readonly defaults: SendOptions = {}) {
    this.#root = root.replace(/\/$/, '');
  }

  send(method: CarrierHttpRequest['method'], path: string, o: SendOptions = {}): Promise<CarrierHttpAnswer> {
    const { json, form, ...rest } = { ...this.defaults, ...o };
    return carrierRequest({ carrier: this.carrier, method, url: `${this.#root}${path}`, basic: this.basic, ...rest,
      ...(json !== undefined ? { body: { json } } : form ? { body: { form } } : {}) });
  }

  /** The carrier's words for a refusal, as the call's carrier status. */
  refusal(a: CarrierHttpAnswer): string { return refusalOf(a, this); }
}

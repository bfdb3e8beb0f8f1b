/**
 * One JSON exchange with an integration (HubSpot, Cal.com, WhatsApp) through the shared request and retry rules:
 * three tries 200 ms apart (doubling), a server's Retry-After waited only up to 1.5 s (a longer one is not: the call
 * goes on and the failure is recorded). Any HTTP answer resolves, error statuses included: the caller records it.
 */
import { errorDetail } from './errors.js';
import { exchange, type HttpAnswer } from './request.js';

export interface JsonRequest {
  /** provider name for messages */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  /** repeating it cannot do the thing twice (a read, an upsert, a PATCH of known values) */
  idempotent: boolean;
  /** an answer that says "not done, try again" although its status is not 429/503 (Graph throttling codes) */
  notActed?: (status: number, body: unknown) => boolean;
  signal?: AbortSignal;
  /** the provider's keys, never to appear in an error */
  secrets?: ReadonlyArray<string | undefined>;
}

export interface JsonAnswer { status: number; body: any }

const POLICY = { attempts: 3, baseMs: 200, jitter: 0, maxWaitMs: 1500 };

const bodyOf = (a: HttpAnswer): unknown => a.json ?? (a.text || undefined);

export async function exchangeJson(req: JsonRequest): Promise<JsonAnswer> {
  const a = await exchange({ adapter: 'tool', name: req.name, method: req.method, url: req.url, headers: req.headers, signal: req.signal,
    secrets: req.secrets, ...(req.body !== undefined ? { body: { json: req.body } } : {}) },
  { idempotent: req.idempotent, policy: POLICY, ...(req.notActed ? { notActed: (x: HttpAnswer) => req.notActed!(x.status, bodyOf(x)) } : {}) });
  return { status: a.status, body: bodyOf(a) };
}

/** The provider's error message from the usual shapes ({message}, {error:{message}}, {detail}), trimmed and redacted. */
export function errorMessage(body: unknown): string {
  if (body === undefined || body === null || body === '') return 'no detail';
  return errorDetail(typeof body === 'string' ? body : JSON.stringify(body)) || 'no detail';
}

export { trimBase } from './request.js';

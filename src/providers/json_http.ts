/**
 * One JSON exchange with an integration (HubSpot, Cal.com, WhatsApp), retried only where that is safe: a 429 or
 * 503 (the provider did nothing), a refused connection (the request never left), and for idempotent requests also
 * other 5xx and dropped connections. Any HTTP answer resolves, error statuses included: the caller records it.
 */
import { AdapterError } from '../adapters/types.js';
import { retryAfterMs } from './stream_http.js';

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
}

export interface JsonAnswer { status: number; body: any }

const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 200;
/** a retry-after longer than this is not waited for: the call goes on and the failure is recorded */
const MAX_WAIT_MS = 1500;

export async function exchangeJson(req: JsonRequest): Promise<JsonAnswer> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: req.method, signal: req.signal,
        headers: { accept: 'application/json', ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}), ...req.headers },
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
      });
    } catch (err) {
      if (req.signal?.aborted) throw new AdapterError('tool', 'canceled', `${req.name} request canceled`);
      const refused = (err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED';
      if (attempt < MAX_ATTEMPTS && (refused || req.idempotent)) { await pause(BACKOFF_MS * 2 ** (attempt - 1), req.signal); continue; }
      throw new AdapterError('tool', 'unavailable', `${req.name} unreachable: ${(err as { cause?: Error }).cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try { body = text ? JSON.parse(text) : undefined; } catch { /* keep the text */ }
    const safe = res.status === 429 || res.status === 503 || (req.idempotent && res.status >= 500) || (req.notActed?.(res.status, body) ?? false);
    const wait = retryAfterMs(res.headers.get('retry-after')) ?? BACKOFF_MS * 2 ** (attempt - 1);
    if (safe && attempt < MAX_ATTEMPTS && wait <= MAX_WAIT_MS) { await pause(wait, req.signal); continue; }
    return { status: res.status, body };
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AdapterError('tool', 'canceled', 'request canceled'));
    const timer = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve(); }, ms);
    const stop = () => { clearTimeout(timer); reject(new AdapterError('tool', 'canceled', 'request canceled')); };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

/** The provider's error message from the usual shapes ({message}, {error:{message}}, {detail}), trimmed. */
export function errorMessage(body: unknown): string {
  const b = body as { message?: unknown; error?: { message?: unknown } | string; detail?: unknown } | undefined;
  const m = typeof b === 'string' ? b : b?.message ?? (typeof b?.error === 'string' ? b.error : b?.error?.message) ?? b?.detail;
  return String(m ?? 'no detail').slice(0, 200);
}

export const trimBase = (url: string) => url.replace(/\/+$/, '');

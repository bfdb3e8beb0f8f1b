/**
 * What a provider's failed answer becomes: an AdapterError that keeps the HTTP status and the server's requested
 * wait, with the provider's own words trimmed and stripped of anything that looks like a credential (OpenAI's 401
 * quotes the key it got, half masked; a proxy may echo an Authorization header). Nothing from a request goes into
 * an error: only what the provider answered, after redaction.
 */
import { AdapterError } from '../../adapters/types.js';
import type { WaitHint } from './retry.js';

type AdapterName = AdapterError['adapter'];

/** (Its name stays 'AdapterError': it is one, with the answer's status and wait kept.) */
export class HttpError extends AdapterError implements WaitHint {
  constructor(adapter: AdapterName, code: AdapterError['code'], message: string, readonly httpStatus: number,
    readonly retryAfterMs?: number, retryable?: boolean) {
    super(adapter, code, message, retryable);
  }
}

/** The adapter error code a status means: busy or broken servers are 'unavailable' (retryable), the rest final. */
export function codeOfStatus(status: number): AdapterError['code'] {
  if (status === 408 || status === 429 || status >= 500) return 'unavailable';
  if (status === 400 || status === 404 || status === 413 || status === 415 || status === 422) return 'invalid';
  return 'failed';
}

/** API keys, bearer and basic credentials as providers write them: `sk-…`, `key-…`, `Bearer …`, `Basic …`, `Token …`. */
const CREDENTIAL = /\b(?:(?:sk|key|pk|rk)[-_][\w*-]{6,}(?:\.[\w*-]+)*|(?:Bearer|Basic|Token)\s+[\w*+/=-]{6,}(?:\.[\w*+/=-]+)*)/gi;

/** `text` with every credential-like run and every one of `secrets` (the provider's own keys) replaced by [redacted]. */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text.replace(CREDENTIAL, '[redacted]');
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

/**
 * The provider's message from an error body in the usual shapes ({message}, {error:{message}}, {error:"…"},
 * {detail}, {detail:{message}}, {RestException:{Message}}, Deepgram's {err_msg}), else the raw text; redacted and cut to `max` characters.
 */
export function errorDetail(text: string, secrets: ReadonlyArray<string | undefined> = [], max = 200): string {
  let msg: unknown = text;
  try {
    const b = JSON.parse(text) as Record<string, any> | string;
    if (typeof b === 'string') msg = b;
    else if (b && typeof b === 'object') {
      const d = b.detail;
      msg = b.message ?? (typeof b.error === 'string' ? b.error : b.error?.message) ?? b.RestException?.Message ?? b.err_msg
        ?? (typeof d === 'string' ? d : d?.message) ?? (d !== undefined ? JSON.stringify(d) : text);
    }
  } catch { /* not JSON: the text as it is */ }
  return redactSecrets(String(msg).replace(/\s+/g, ' ').trim(), secrets).slice(0, max);
}

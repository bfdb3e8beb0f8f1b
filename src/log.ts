/** pino with redaction: tokens, keys, passwords, signatures and phone numbers in URLs never reach the log. */
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'req.headers["x-twilio-signature"]',
  'req.headers["webhook-signature"]', 'req.headers["x-signature"]', 'req.query.access_token',
  'password', '*.password', 'token', '*.token', 'access_token', '*.access_token', 'key', '*.api_key', 'secret', '*.secret',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'voicecall' } },
    destination as pino.DestinationStream | undefined);
}

/** Query parameters whose value is a credential: tokens (browsers put them in WebSocket URLs), link signatures. */
const SECRET_PARAM = /^(access_token|token|signature|sig|expires|key|api_key|password|secret)$/i;
/** Query parameters that name a person's number whatever its spelling. */
const PHONE_PARAM = /^(phone|e164|msisdn|number|to|from)$/i;
/** A phone number once separators are dropped: an optional + and 7 to 15 digits. */
const PHONE = /^\+?\d{7,15}$/;
const SEPARATORS = /[\s().-]/g;

const decoded = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };
const phoneLike = (s: string) => PHONE.test(s.replace(SEPARATORS, ''));

/**
 * A URL as it may be logged: credentials in the query (tokens, recording-link signatures and expiry) become
 * [redacted], phone numbers in path segments (DELETE /v1/dnd/+91…) and query values (?phone=…) become [phone].
 * URLs without a query or a run of four digits (most of them) are returned as they are.
 */
export function scrubUrl(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const scrubbedPath = /\d{4}/.test(path)
    ? path.split('/').map((seg) => (phoneLike(decoded(seg)) ? '[phone]' : seg)).join('/')
    : path;
  if (q === -1) return scrubbedPath;
  const query = url.slice(q + 1).split('&').map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1) return pair;
    const name = decoded(pair.slice(0, eq));
    const value = decoded(pair.slice(eq + 1).replace(/\+/g, ' '));
    if (SECRET_PARAM.test(name)) return `${pair.slice(0, eq)}=[redacted]`;
    if (PHONE_PARAM.test(name) || phoneLike(value)) return `${pair.slice(0, eq)}=[phone]`;
    return pair;
  });
  return `${scrubbedPath}?${query.join('&')}`;
}

export type { Logger };

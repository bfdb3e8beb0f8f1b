/** pino with redaction: tokens, keys, passwords and signatures never reach the log. */
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

/** Strips access_token=… from a URL before it is logged (browsers put tokens in WebSocket query strings). */
export const scrubUrl = (url: string) => url.replace(/(access_token|token|signature)=[^&]*/gi, '$1=[redacted]');

export type { Logger };

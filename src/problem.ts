/**
 * application/problem+json (RFC 9457) bodies with a stable `code`, and the refusal of a WebSocket upgrade in that
 * form. Below the API on purpose: the Express error handler (src/api/problem.ts), the carriers' callbacks and
 * media sockets and the live-stream socket all answer failures the same way without importing the HTTP layer.
 */
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from './errors.js';

const TITLES: Record<ErrorCode, string> = {
  validation_failed: 'Request validation failed',
  malformed_json: 'Malformed JSON body',
  address_not_allowed: 'Address not allowed',
  malformed_request: 'Malformed HTTP request',
  unauthenticated: 'Authentication required',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  request_timeout: 'Request timeout',
  conflict: 'Conflict',
  gone: 'Gone',
  payload_too_large: 'Payload too large',
  headers_too_large: 'Request header fields too large',
  unsupported_media_type: 'Unsupported media type',
  unprocessable_audio: 'Audio could not be processed',
  dnd_blocked: 'Blocked by do-not-disturb rules',
  outside_calling_hours: 'Outside the callee\'s calling hours',
  rate_limited: 'Too many requests',
  concurrency_limited: 'Too many concurrent calls',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
};

export function problemBody(code: ErrorCode, detail: string, extra: Record<string, unknown> = {}, instance?: string) {
  const { retryAfterSeconds, ...rest } = extra;
  void retryAfterSeconds;
  return {
    type: `https://docs.voicecall.dev/errors/${code}`,
    title: TITLES[code],
    status: ERROR_STATUS[code],
    code,
    detail,
    ...(instance ? { instance } : {}),
    ...rest,
  };
}

const REASON: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error', 503: 'Service Unavailable' };

/**
 * Refuses a WebSocket upgrade before it is accepted: an HTTP answer in problem+json, then the socket closes.
 * `bare`: the status line and nothing more (a door that must not say why, e.g. a carrier hook probed by a stranger).
 */
export function refuseUpgrade(socket: Duplex, code: ErrorCode, detail: string, o: { extra?: Record<string, unknown>; bare?: boolean } = {}): void {
  if (socket.destroyed) return;
  const status = ERROR_STATUS[code];
  const head = `HTTP/1.1 ${status} ${REASON[status] ?? 'Error'}\r\n`;
  if (o.bare) { socket.end(`${head}Content-Length: 0\r\nConnection: close\r\n\r\n`); return; }
  const body = JSON.stringify(problemBody(code, detail, o.extra));
  const auth = status === 401 ? 'WWW-Authenticate: Bearer\r\n' : '';
  socket.end(`${head}Content-Type: application/problem+json\r\n${auth}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

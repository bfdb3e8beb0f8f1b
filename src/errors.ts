/**
 * The few error kinds the service speaks, each with a stable `code` and HTTP status. Routes throw these;
 * one Express error handler (src/api/problem.ts) turns them into application/problem+json (RFC 9457).
 */
export interface FieldError { path: string; message: string }

export const ERROR_STATUS = {
  validation_failed: 400,
  malformed_json: 400,
  /** a URL we would call points at an address the outbound policy refuses (src/net/address_policy.ts) */
  address_not_allowed: 400,
  /** the HTTP request itself could not be parsed */
  malformed_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  unprocessable_audio: 422,
  dnd_blocked: 422,
  outside_calling_hours: 422,
  rate_limited: 429,
  concurrency_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { fields?: FieldError[]; retryable?: boolean; retryAfterSeconds?: number; [k: string]: unknown } = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const conflict = (message: string, extra: ApiError['extra'] = {}) => new ApiError('conflict', message, extra);
export const forbidden = (message = 'this role may not do that') => new ApiError('forbidden', message);

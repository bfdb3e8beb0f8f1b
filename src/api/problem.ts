/** Maps every failure to application/problem+json with a stable code; never leaks a stack trace. The bodies: src/problem.ts. */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ApiError } from '../errors.js';
import { problemBody } from '../problem.js';
import { isUnavailable } from '../db/db.js';
import { scrubUrl, type Logger } from '../log.js';

export { problemBody };

export function sendProblem(res: Response, err: ApiError, instance?: string): void {
  if (err.extra.retryAfterSeconds) res.setHeader('Retry-After', String(err.extra.retryAfterSeconds));
  res.status(err.status).type('application/problem+json').send(JSON.stringify(problemBody(err.code, err.message, err.extra, instance)));
}

/** Seconds a client is told to wait (Retry-After) when the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** body-parser and multer report their own errors, the database its outages; translate them to our codes. */
function fromFramework(err: unknown): ApiError | undefined {
  if (isUnavailable(err)) {
    return new ApiError('unavailable', 'the database is unreachable; retry shortly', { retryable: true, retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
  }
  const e = err as { type?: string; status?: number; code?: string; message?: string };
  if (e?.type === 'entity.parse.failed') return new ApiError('malformed_json', 'request body is not valid JSON');
  if (e?.type === 'entity.too.large' || e?.code === 'LIMIT_FILE_SIZE') return new ApiError('payload_too_large', 'request body exceeds the size limit');
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') return new ApiError('unsupported_media_type', e.message ?? 'unsupported encoding');
  // zlib's own failure (Z_DATA_ERROR, Z_BUF_ERROR, brotli's ERR__ERROR_…), passed on by body-parser as a 400
  if (e?.status === 400 && typeof e.code === 'string' && /^(Z_|ERR__ERROR)/.test(e.code)) {
    return new ApiError('malformed_request', 'the body is not validly compressed for its Content-Encoding');
  }
  if (typeof e?.code === 'string' && e.code.startsWith('LIMIT_')) return new ApiError('validation_failed', e.message ?? 'multipart limit exceeded');
  if (e?.status === 400 && e?.type) return new ApiError('validation_failed', e.message ?? 'bad request');
  return undefined;
}

/** Known errors become their problem; anything else is logged with the request id and answered as a 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = err instanceof ApiError ? err : fromFramework(err);
    if (known) return sendProblem(res, known, req.originalUrl);
    log.error({ err, req: { id: req.id, method: req.method, url: scrubUrl(req.originalUrl) } }, 'unhandled error');
    sendProblem(res, new ApiError('internal', 'an unexpected error occurred; it has been logged'), req.originalUrl);
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendProblem(res, new ApiError('not_found', `no route for ${req.method} ${req.path}`), req.originalUrl);
};

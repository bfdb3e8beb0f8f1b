/**
 * Request id and one log line per request ("request completed": req {id, method, url}, res {statusCode},
 * responseTime ms; "request aborted" when the client left first), the shape pino-http wrote.
 *
 * Written here because pino-http was measured slow on the hot path (bench/README.md, "HTTP"): it builds a child
 * logger with the serialised request for every request whatever the level. Here the line is built only when its
 * level is enabled. There is no per-request child logger (req.log): the error handler logs the id
 * itself, and a property defined per request would give every request object its own hidden class.
 */
import type { RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { scrubUrl, type Logger } from '../log.js';

declare module 'node:http' {
  interface IncomingMessage {
    /** the request id (X-Request-Id given by the caller when well-formed, else a UUID); logged with errors */
    id?: string;
  }
}

const GIVEN_ID = /^[\w.-]{1,128}$/;

export function requestLog(log: Logger, opts: { quiet(url: string): boolean }): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    if (!opts.quiet(req.url) && log.isLevelEnabled('info')) {
      const start = performance.now();
      res.once('close', () => {
        const line = { req: { id, method: req.method, url: scrubUrl(req.originalUrl) }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - start) };
        if (!res.writableFinished) log.warn(line, 'request aborted');
        else if (res.statusCode >= 500) log.error(line, 'request completed');
        else log.info(line, 'request completed');
      });
    }
    next();
  };
}

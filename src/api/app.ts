/**
 * buildApp(deps) wires middleware and routes; it never listens (src/server.ts does). Order matters:
 * request id and logging first, then metrics, body parsing by route, the /v1 router, then 404 and errors.
 */
import type { IncomingMessage } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import type { AppDeps } from './deps.js';
import { errorHandler, notFoundHandler, sendProblem } from './problem.js';
import { RouteTable } from './route_table.js';
import { requestLog } from './request_log.js';
import { refuseUnstorable } from './validate.js';
import { refuseDeepJson } from './json_depth.js';
import { buildOpenApi } from './openapi.js';
import { ROUTE_MODULES } from './routes/index.js';
import { systemRoutes } from './routes/system.js';
import { webPages } from './web_pages.js';
import { serveMetrics } from './metrics_endpoint.js';

export const API_VERSION = '1.0.0';

export function buildRouteTable(deps: AppDeps): RouteTable {
  const table = new RouteTable();
  let doc: unknown;
  systemRoutes(table, deps, () => (doc ??= buildOpenApi(table, { version: API_VERSION, serverUrl: deps.config.publicBaseUrl })));
  for (const mod of ROUTE_MODULES) mod(table, deps);
  return table;
}

export function buildApp(deps: AppDeps, table = buildRouteTable(deps)): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express would hash every response body (SHA-1) for an ETag, writes included, where no client can use one;
  // reads declared in the route table get theirs there (route_table.ts).
  app.set('etag', false);
  // X-Forwarded-For is believed only from the proxies TRUST_PROXY names; otherwise the client is the peer, and a
  // local process cannot pick the address rate limits count.
  app.set('trust proxy', deps.config.TRUST_PROXY ? deps.config.TRUST_PROXY.split(',').map((s) => s.trim()) : false);

  app.use(requestLog(deps.log, { quiet: (url) => url === '/metrics' || url === '/v1/health' }));
  app.use(recordMetrics(deps));

  // on its own listener instead when METRICS_PORT is set (src/server.ts); then this address answers 404 for it
  if (deps.config.METRICS_PORT === undefined) {
    app.get('/metrics', (req, res, next) => { serveMetrics(req, res, deps.metrics, { token: deps.config.METRICS_TOKEN }).catch(next); });
  }

  // Carriers call back with forms they sign: the raw bytes are kept and the carrier reads them (JSON goes through
  // the JSON parser below, which keeps its raw bytes too).
  app.use('/v1/carriers', express.raw({ type: (req) => !isJson(req), limit: CARRIER_CALLBACK_LIMIT_BYTES }), (req, _res, next) => {
    (req as { rawBody?: Buffer }).rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    next();
  });
  app.use(requireJsonOrMultipart);
  // The raw bytes are kept for routes that verify a signature over them (inbound webhooks).
  const keepRaw = (req: IncomingMessage, _res: unknown, buf: Buffer, charset: string) => { inspectJson(req, _res, buf, charset); (req as { rawBody?: Buffer }).rawBody = buf; };
  const small = express.json({ limit: deps.config.JSON_BODY_LIMIT_BYTES, strict: true, type: isJson, verify: keepRaw });
  const large = express.json({ limit: deps.config.AUDIO_BODY_LIMIT_BYTES, strict: true, type: isJson, verify: inspectJson });
  // Audio turns carry base64 WAV; every other body is small.
  app.use((req, res, next) => (req.path.endsWith('/audio') ? large : small)(req, res, next));
  app.use(refuseUnstorableInput);

  app.use('/v1', table.router(deps));
  app.use(webPages(deps.config));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}

/**
 * Runs on the raw bytes of every JSON body before it is parsed (body-parser's verify step; a throw here answers
 * with that error and the body is never parsed):
 *  - JSON is UTF-8 (RFC 8259); the depth scan reads bytes, so another charset is refused rather than misread;
 *  - a body nested deeper than MAX_JSON_DEPTH is refused, so nothing after this meets a deeper one;
 *  - a NUL or a lone surrogate can only reach a parsed body through a \u escape (raw control characters are
 *    invalid JSON, and decoding UTF-8 never yields a surrogate), so only bodies holding one are walked for them.
 */
const ESCAPED = new WeakSet<IncomingMessage>();
function inspectJson(req: IncomingMessage, _res: unknown, buf: Buffer, charset: string): void {
  if (charset && !/^utf-?8$/i.test(charset)) throw new ApiError('unsupported_media_type', `JSON bodies must be UTF-8, not ${charset}`);
  refuseDeepJson(buf);
  if (buf.includes('\\u')) ESCAPED.add(req);
}

/**
 * Strings PostgreSQL cannot store are refused for every route, before it runs (400 validation_failed naming the
 * field): in the JSON body, the query (only a %00 can put a NUL there; invalid UTF-8 decodes to U+FFFD) and the
 * path (its segments become route params).
 */
const refuseUnstorableInput: RequestHandler = (req, _res, next) => {
  if (ESCAPED.has(req)) refuseUnstorable(req.body, 'body');
  const url = req.url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (q !== -1 && url.includes('%00', q)) refuseUnstorable(req.query, 'query');
  if (path.includes('%')) {
    for (const segment of path.split('/')) {
      let decoded: string;
      try { decoded = decodeURIComponent(segment); } catch {
        throw new ApiError('validation_failed', 'invalid path: not valid percent-encoded UTF-8', { fields: [{ path: 'path', message: 'not valid percent-encoded UTF-8' }] });
      }
      refuseUnstorable(decoded, 'path');
    }
  }
  next();
};

/** a carrier callback is a form of a few fields; past this it is not one */
const CARRIER_CALLBACK_LIMIT_BYTES = 64 * 1024;

const isJson = (req: { headers: Record<string, unknown> }) => /^application\/([\w.+-]+\+)?json\b/i.test(String(req.headers['content-type'] ?? ''));

/**
 * A body in any type but JSON (or multipart, or a raw WAV on an audio route, which the audio route parses itself)
 * is a 415, not a silent {}.
 */
const requireJsonOrMultipart: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const type = String(req.headers['content-type'] ?? '');
  const audio = req.path.endsWith('/audio');
  if (req.rawBody !== undefined && req.path.startsWith('/v1/carriers/')) return next();
  if (!hasBody || isJson(req) || /^multipart\/form-data\b/i.test(type) || (audio && isWav(type))) return next();
  const detail = audio
    ? 'audio bodies must be application/json {"wavBase64": …}, multipart/form-data with the WAV in a part named "audio", or audio/wav'
    : 'request bodies must be application/json';
  sendProblem(res, new ApiError('unsupported_media_type', detail), req.originalUrl);
};

const isWav = (type: string) => /^audio\/(?:wav|x-wav|wave|vnd\.wave)\b/i.test(type);

function recordMetrics(deps: AppDeps): RequestHandler {
  return (req, res, next) => {
    const end = deps.metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      deps.metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      end({ method: req.method, route });
    });
    next();
  };
}

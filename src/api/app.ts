/**
 * buildApp(deps) wires middleware and routes; it never listens (src/server.ts does). Order matters:
 * request id and logging first, then metrics, body parsing by route, the /v1 router, then 404 and errors.
 */
import express, { type Express, type RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import type { AppDeps } from './deps.js';
import { errorHandler, notFoundHandler, sendProblem } from './problem.js';
import { RouteTable } from './route_table.js';
import { requestLog } from './request_log.js';
import { buildOpenApi } from './openapi.js';
import { ROUTE_MODULES } from './routes/index.js';
import { systemRoutes } from './routes/system.js';

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
  // reads declared in the route table get theirs there (route_table.ts). About 0.03 ms of CPU per request.
  app.set('etag', false);
  app.set('trust proxy', 'loopback');

  app.use(requestLog(deps.log, { quiet: (url) => url === '/metrics' || url === '/v1/health' }));
  app.use(recordMetrics(deps));

  app.get('/metrics', async (_req, res) => {
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  app.use(requireJsonOrMultipart);
  // The raw bytes are kept for routes that verify a signature over them (inbound webhooks).
  const keepRaw = (req: import('node:http').IncomingMessage, _res: unknown, buf: Buffer) => { (req as { rawBody?: Buffer }).rawBody = buf; };
  const small = express.json({ limit: deps.config.JSON_BODY_LIMIT_BYTES, strict: true, type: isJson, verify: keepRaw });
  const large = express.json({ limit: deps.config.AUDIO_BODY_LIMIT_BYTES, strict: true, type: isJson });
  // Audio turns carry base64 WAV; every other body is small.
  app.use((req, res, next) => (req.path.endsWith('/audio') ? large : small)(req, res, next));

  app.use('/v1', table.router(deps));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.log));
  return app;
}

const isJson = (req: { headers: Record<string, unknown> }) => /^application\/([\w.+-]+\+)?json\b/i.test(String(req.headers['content-type'] ?? ''));

/** A body in any type but JSON (or multipart, which the audio route parses itself) is a 415, not a silent {}. */
const requireJsonOrMultipart: RequestHandler = (req, res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const type = String(req.headers['content-type'] ?? '');
  if (!hasBody || isJson(req) || /^multipart\/form-data\b/i.test(type)) return next();
  sendProblem(res, new ApiError('unsupported_media_type', 'request bodies must be application/json'), req.originalUrl);
};

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

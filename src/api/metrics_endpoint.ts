/**
 * GET /metrics (Prometheus text). Public by default, as scrapers expect; METRICS_TOKEN makes it need
 * `Authorization: Bearer <token>`, and METRICS_PORT moves it to a listener of its own (METRICS_HOST, default
 * 127.0.0.1) so it can stay off the public address entirely. Plain node:http: a scrape needs no Express.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Metrics } from '../metrics.js';
import { problemBody } from './problem.js';

export interface MetricsAccess { token?: string }

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request may read the metrics; compared over digests, so timing says nothing about the token. */
export function metricsAllowed(req: Pick<IncomingMessage, 'headers'>, access: MetricsAccess): boolean {
  if (!access.token) return true;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''));
  return !!m && timingSafeEqual(digest(m[1]), digest(access.token));
}

/** Answers a scrape: the registry's text, or 401 problem+json. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, metrics: Metrics, access: MetricsAccess): Promise<void> {
  if (!metricsAllowed(req, access)) {
    const body = JSON.stringify(problemBody('unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {}, '/metrics'));
    res.writeHead(401, { 'content-type': 'application/problem+json', 'www-authenticate': 'Bearer realm="metrics"', 'content-length': Buffer.byteLength(body) }).end(body);
    return;
  }
  const text = await metrics.registry.metrics();
  res.writeHead(200, { 'content-type': metrics.registry.contentType, 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The separate metrics listener (METRICS_PORT): GET /metrics and nothing else. */
export async function startMetricsServer(host: string, port: number, metrics: Metrics, access: MetricsAccess): Promise<{ server: Server; port: number }> {
  const server = createServer({ headersTimeout: 5_000, requestTimeout: 10_000 }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      serveMetrics(req, res, metrics, access).catch(() => { if (!res.headersSent) res.writeHead(500).end(); });
      return;
    }
    const body = JSON.stringify(problemBody('not_found', 'this listener serves only GET /metrics'));
    res.writeHead(404, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * Listens: HTTP (Express app) plus WebSocket upgrades routed by path to the table's socket endpoints.
 * close() stops accepting, ends open WebSockets and live calls, lets requests in flight finish, then closes
 * services; it is idempotent.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { buildServices, type BuildOptions, type Services } from './services.js';
import { buildApp, buildRouteTable } from './api/app.js';
import { createExpressServer } from './api/express_server.js';
import { matchPath, type RouteTable } from './api/route_table.js';
import { refuseUpgrade } from './problem.js';
import { startMetricsServer } from './api/metrics_endpoint.js';

export interface RunningServer {
  /** e.g. http://127.0.0.1:8787/v1 */
  baseUrl: string;
  port: number;
  services: Services;
  /** every declared route and socket (tests walk it) */
  table: RouteTable;
  http: Server;
  /** the port of the separate metrics listener (METRICS_PORT), when there is one */
  metricsPort?: number;
  close(): Promise<void>;
}

export async function startServer(config: Config, opts: BuildOptions = {}): Promise<RunningServer> {
  const services = await buildServices(config, opts);
  const table = buildRouteTable(services);
  const app = buildApp(services, table);
  const http = createExpressServer(app, {
    headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS, keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  });
  http.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/v1/, '');
    for (const ws of table.sockets) {
      const params = matchPath(ws.path, path);
      if (params) return ws.handle(req, socket, head, params);
    }
    refuseUpgrade(socket, 'not_found', `no WebSocket endpoint at ${path}`);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.PORT, config.HOST, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const metrics = config.METRICS_PORT === undefined ? undefined
    : await startMetricsServer(config.METRICS_HOST, config.METRICS_PORT, services.metrics, { token: config.METRICS_TOKEN }).catch(async (err) => {
      await new Promise<void>((r) => http.close(() => r()));
      await services.close();
      throw err;
    });
  if (!config.PUBLIC_BASE_URL) {
    const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    config.publicBaseUrl = `http://${host}:${port}/v1`;
  }
  let closing: Promise<void> | undefined;
  return {
    baseUrl: config.publicBaseUrl, port, services, table, http, metricsPort: metrics?.port,
    close: () => (closing ??= (async () => {
      const httpClosed = new Promise<void>((resolve) => http.close(() => resolve()));
      if (metrics) { metrics.server.close(); metrics.server.closeAllConnections(); }
      http.closeIdleConnections();
      // Upgraded sockets (live listeners, carrier media) would hold http.close open: end them first, while
      // storage is still up, so listeners get 1001 and live calls store their outcome as server_shutdown.
      await Promise.all([services.stream.edge.close(), services.callEngine.close()]);
      await httpClosed;
      await services.close();
    })()),
  };
}

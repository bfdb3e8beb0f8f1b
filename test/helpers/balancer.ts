/**
 * A small round-robin balancer for tests of several instances (what HAProxy with `balance roundrobin` does, see
 * docs/haproxy.cfg): each HTTP request and each WebSocket upgrade goes to the next target in turn, except a path
 * under /i/<n>/, which goes to target n with that prefix removed (an instance's own INSTANCE_PUBLIC_URL). `pin`
 * lets a test send some requests to one target (e.g. every carrier callback to the instance not running the call).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';

export interface Balancer {
  url: string; server: Server; hits: number[];
  /** the target index for a request path, or undefined for round robin */
  pin?: (path: string) => number | undefined;
  close(): Promise<void>;
}

export async function startBalancer(targets: string[]): Promise<Balancer> {
  const proxy = httpProxy.createProxyServer({ ws: true });
  const hits = targets.map(() => 0);
  let next = 0;
  const pick = (req: IncomingMessage) => {
    const own = /^\/i\/(\d+)(\/.*)$/.exec(req.url ?? '');
    if (own && targets[Number(own[1])]) { req.url = own[2]; return targets[Number(own[1])]; }
    const i = b.pin?.(req.url ?? '') ?? next++ % targets.length;
    hits[i] += 1;
    return targets[i];
  };
  // a target that went away (an instance killed by a test) answers 502, as a balancer does
  proxy.on('error', (_err, _req, res) => {
    if ('writeHead' in res && !res.headersSent) { res.writeHead(502); res.end(); } else res.destroy();
  });
  const server = createServer((req, res) => proxy.web(req, res, { target: pick(req) }));
  server.on('upgrade', (req, socket, head) => proxy.ws(req, socket, head, { target: pick(req) }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const b: Balancer = {
    url: `http://127.0.0.1:${port}`, server, hits,
    close: () => new Promise<void>((r) => { server.closeAllConnections?.(); proxy.close(); server.close(() => r()); }),
  };
  return b;
}

/**
 * The plumbing the integration fakes share: a loopback HTTP server that parses JSON bodies, records every
 * request, and can answer the next requests with injected failures (status, body, retry-after) before the
 * provider's own handler runs. Each fake (hubspot.ts, calcom.ts, whatsapp.ts) supplies the documented behaviour.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest { method: string; path: string; headers: IncomingHttpHeaders; body: any }
export interface Answer { status: number; body?: unknown; headers?: Record<string, string> }
export interface Injection extends Answer { /** only requests whose path matches; default: any */ path?: RegExp; /** drop the connection instead */ drop?: boolean }

export interface JsonFake {
  url: string;
  requests: RecordedRequest[];
  injectNext(...i: Injection[]): void;
  close(): Promise<void>;
}

export async function startJsonServer(handle: (req: RecordedRequest) => Answer): Promise<JsonFake> {
  const requests: RecordedRequest[] = [];
  const injections: Injection[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown;
      try { body = raw ? JSON.parse(raw) : undefined; } catch { body = raw; }
      const r: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
      requests.push(r);
      const at = injections.findIndex((i) => !i.path || i.path.test(r.path));
      const answer = at >= 0 ? injections.splice(at, 1)[0] : handle(r);
      if ((answer as Injection).drop) { req.socket.destroy(); return; }
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    injectNext: (...i) => { injections.push(...i); },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

export const bearer = (r: RecordedRequest) => /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];

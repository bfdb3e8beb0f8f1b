/** A local webhook endpoint for end-to-end tests: records every delivery (headers, raw body) and answers 204. */
import { createServer } from 'node:http';

export interface ReceivedHook { headers: Record<string, string>; body: string }

export async function webhookReceiver(t: { teardown(fn: () => Promise<void>): void }): Promise<{ received: ReceivedHook[]; url: string }> {
  const received: ReceivedHook[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { received.push({ headers: req.headers as Record<string, string>, body }); res.writeHead(204).end(); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { received, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook` };
}

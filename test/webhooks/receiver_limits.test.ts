/**
 * A webhook receiver cannot exhaust our memory or hold a delivery: one answering a 1.5 GB body took the service
 * from 274 MiB to 4.8 GiB, and the delivery timeout did not cut the body read. Now at most RESPONSE_HEAD_BYTES
 * of an answer are read (its start kept in the delivery log of a refused delivery), and one deadline
 * (WEBHOOK_TIMEOUT_MS) covers connect, headers and body.
 */
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, api, startTestServer } from '../helpers/server.js';
import { RESPONSE_HEAD_BYTES } from '../../src/webhooks/deliverer.js';

let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end();
const timers: NodeJS.Timeout[] = [];
const receiver = createServer((req, res) => handler(req, res));
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => { timers.forEach(clearInterval); receiver.closeAllConnections(); return new Promise<void>((r) => receiver.close(() => r())); });
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

// a short deadline and retry base, so a cut delivery shows in the log soon; no assertion is about time
const srv = await startTestServer({ env: { WEBHOOK_TIMEOUT_MS: '1500', WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const key = { 'x-api-key': API_KEY };

/** Dispatches a no-answer call with the webhook and returns its delivery log once the first attempt is logged. */
async function firstAttempt() {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550001', agent_id: 'default', webhook_url: hookUrl } });
  for (let i = 0; i < 600; i++) {
    const log = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/webhooks`, { headers: key });
    if (log.body.data[0]?.log.length) return log.body.data[0];
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no attempt logged');
}

t.test('an endless answer: read up to the bound, then the connection is closed and the delivery counts', async (t) => {
  let sent = 0;
  handler = (_q, res) => {
    res.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => { while (res.writable && res.write(chunk)) sent += chunk.length; };
    res.on('drain', pump);
    pump();
  };
  const hook = await firstAttempt();
  t.equal(hook.state, 'delivered', 'a 2xx counts as soon as its status is in');
  t.equal(hook.log[0].status_code, 200);
  t.ok(sent < 64 * 1024 * 1024, `the receiver could not push more than its socket buffers (${sent} bytes)`);
  t.equal(RESPONSE_HEAD_BYTES, 4096);
});

t.test('a slow drip is cut by the one deadline and retried as a timeout', async (t) => {
  handler = (_q, res) => { res.writeHead(200); timers.push(setInterval(() => res.write('x'), 50)); };
  const hook = await firstAttempt();
  t.equal(hook.log[0].error, 'timeout');
  t.equal(hook.state, 'pending', 'a timeout is retried');
});

t.test('a refused answer keeps its start in the delivery log, on one line', async (t) => {
  handler = (_q, res) => res.writeHead(422, { 'content-type': 'application/json' }).end(`{"error":"bad signature"}\n${'z'.repeat(10_000)}`);
  const hook = await firstAttempt();
  t.equal(hook.state, 'failed', '4xx is final');
  t.match(hook.log[0].error, /^HTTP 422: \{"error":"bad signature"\} z+$/);
  t.ok(hook.log[0].error.length <= 'HTTP 422: '.length + 200);
});

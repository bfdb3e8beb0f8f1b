/**
 * Requests to customer URLs (src/net/outbound.ts) against receivers on loopback: the address check is made on
 * the address the socket connects to (a name resolving to a refused address is refused with no connection, and
 * a second, different answer cannot slip past an earlier check), redirects are not followed, and a receiver
 * cannot make us hold more than a few KiB or wait past one deadline (a huge body, a slow drip, no answer).
 */
import t from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AddressPolicy } from '../../src/net/address_policy.js';
import { boundedPost, RefusedAddressError, type Resolve } from '../../src/net/outbound.js';

const hits: string[] = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end('ok');
const receiver = createServer((req, res) => { hits.push(req.url ?? ''); handler(req, res); });
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
t.teardown(() => { receiver.closeAllConnections(); return new Promise<void>((r) => receiver.close(() => r())); });
const port = (receiver.address() as AddressInfo).port;

const strict = new AddressPolicy();
const loopbackAllowed = AddressPolicy.fromList('127.0.0.1/32');
const post = (url: string, policy: AddressPolicy, extra: { resolve?: Resolve; timeoutMs?: number } = {}) =>
  boundedPost(url, { policy, headers: { 'content-type': 'application/json' }, body: '{"event":"call.completed"}',
    timeoutMs: extra.timeoutMs ?? 5000, maxResponseBytes: 4096, resolve: extra.resolve });
/** A resolver that answers `addresses` for every name, like a DNS server under an attacker's control. */
const answering = (...addresses: string[]): Resolve => (_name, _opts, cb) =>
  cb(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

t.beforeEach(() => { hits.length = 0; handler = (_q, res) => res.end('ok'); });

t.test('an allowed receiver gets the POST and its answer is read', async (t) => {
  const r = await post(`http://127.0.0.1:${port}/hook`, loopbackAllowed);
  t.same([r.status, r.head.toString(), r.truncated], [200, 'ok', false]);
  t.same(hits, ['/hook']);
});

t.test('a refused literal is not connected to', async (t) => {
  for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '127.1', '2130706433', '0x7f000001']) {
    await t.rejects(post(`http://${host}:${port}/hook`, strict), RefusedAddressError, host);
  }
  t.same(hits, [], 'the receiver saw nothing');
});

t.test('a name resolving to a refused address is refused at connect time, with no connection', async (t) => {
  const err = await post(`http://localhost:${port}/hook`, strict).catch((e: unknown) => e);
  t.type(err, RefusedAddressError, 'the system resolver says localhost is loopback');
  t.match((err as Error).message, /localhost resolves to a refused address (127\.0\.0\.1|::1) \(loopback\)/);
  await t.rejects(post(`http://hooks.customer.test:${port}/hook`, strict, { resolve: answering('127.0.0.1') }), RefusedAddressError);
  await t.rejects(post(`http://hooks.customer.test:${port}/hook`, strict, { resolve: answering('10.0.0.7') }), RefusedAddressError);
  // a name answering a public and a private address (the rebinding trick of racing two answers) is refused whole
  await t.rejects(post(`http://hooks.customer.test:${port}/hook`, strict, { resolve: answering('93.184.215.14', '127.0.0.1') }), RefusedAddressError);
  t.same(hits, []);
});

t.test('the address checked is the address connected to (DNS rebinding cannot slip past)', async (t) => {
  // The answer the socket gets is the one judged: an answer that changes between lookups is judged each time.
  let n = 0;
  const rebinding: Resolve = (_name, _opts, cb) => cb(null, [{ address: n++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }]);
  const r = await post(`http://rebind.customer.test:${port}/first`, loopbackAllowed, { resolve: rebinding });
  t.equal(r.status, 200, 'first answer: an allowed address, connected to');
  await t.rejects(post(`http://rebind.customer.test:${port}/second`, loopbackAllowed, { resolve: rebinding }), RefusedAddressError,
    'second answer: refused, although the same name passed before');
  t.same(hits, ['/first']);
});

t.test('redirects are not followed', async (t) => {
  handler = (req, res) => {
    if (req.url === '/hook') res.writeHead(307, { location: `http://127.0.0.1:${port}/internal` }).end();
    else res.end('internal');
  };
  const r = await post(`http://127.0.0.1:${port}/hook`, loopbackAllowed);
  t.equal(r.status, 307);
  t.same(hits, ['/hook'], 'the Location was never requested');
});

t.test('a huge answer is cut after maxResponseBytes and its connection closed', async (t) => {
  let closed!: () => void;
  const socketClosed = new Promise<void>((r) => { closed = r; });
  handler = (req, res) => {
    req.socket.once('close', () => closed());
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    const pump = () => { while (res.write(chunk)); };
    res.on('drain', pump);
    pump(); // endless: only our side closing stops it
  };
  const r = await post(`http://127.0.0.1:${port}/hook`, loopbackAllowed);
  t.equal(r.status, 200);
  t.equal(r.head.length, 4096, 'no more than maxResponseBytes kept');
  t.equal(r.truncated, true);
  await socketClosed;
  t.pass('the receiver saw its connection closed');
});

t.test('one deadline covers headers and body: a slow drip is cut', async (t) => {
  const timers: NodeJS.Timeout[] = [];
  handler = (_q, res) => {
    res.writeHead(200);
    timers.push(setInterval(() => res.write('x'), 20)); // a byte every 20 ms, forever
  };
  const err = await post(`http://127.0.0.1:${port}/hook`, loopbackAllowed, { timeoutMs: 300 }).catch((e: unknown) => e);
  for (const i of timers) clearInterval(i);
  t.equal((err as Error).name, 'TimeoutError');
  handler = () => {}; // never answers
  const err2 = await post(`http://127.0.0.1:${port}/hook`, loopbackAllowed, { timeoutMs: 300 }).catch((e: unknown) => e);
  t.equal((err2 as Error).name, 'TimeoutError', 'no headers at all');
});

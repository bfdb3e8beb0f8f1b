/**
 * What broke: 2,000 TCP connections that never sent a byte stayed open (file descriptors 236 -> 2,236), and node's
 * defaults would keep such a connection for 60-90 s. The head deadline (HTTP_HEADERS_TIMEOUT_MS), the request
 * deadline (HTTP_REQUEST_TIMEOUT_MS) and the keep-alive idle limit (HTTP_KEEP_ALIVE_TIMEOUT_MS) are set on the
 * server explicitly; here, with small values, real sockets are closed by each, and an upgraded WebSocket is not.
 */
import t from 'tap';
import net from 'node:net';
import { API_KEY, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { connect, insertCall, wsUrl } from '../stream/helpers.js';

const HEADERS_MS = 400, REQUEST_MS = 1500, KEEP_ALIVE_MS = 400;
const srv = await startTestServer({ env: {
  HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS), HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
} });
t.teardown(() => srv.close());

// Opened before the hostile connections and checked after they are all gone: it outlives every HTTP deadline.
const callId = await insertCall(srv.services, DEV_TENANT_ID);
const listener = await connect(wsUrl(srv.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${API_KEY}` });


/** A raw connection; `closed` resolves with everything the server sent once it closed the connection. */
function open(): Promise<{ socket: net.Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(srv.port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => { got += d.toString(); });
    const closed = new Promise<string>((r) => socket.once('close', () => r(got)));
    socket.once('connect', () => { socket.off('error', reject); socket.on('error', () => {}); resolve({ socket, closed }); });
    socket.once('error', reject);
  });
}

/** Resolves with the promise's value, or rejects when it has not settled within `ms` (a deadline, not a timing assertion). */
const within = <T>(p: Promise<T>, ms: number, what: string) => Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what}: not within ${ms} ms`)), ms).unref())]);

t.test('the deadlines are set on the server explicitly', async (t) => {
  t.equal(srv.http.headersTimeout, HEADERS_MS);
  t.equal(srv.http.requestTimeout, REQUEST_MS);
  t.equal(srv.http.keepAliveTimeout, KEEP_ALIVE_MS);
});

t.test('2,000 connections that never send a byte are all closed', async (t) => {
  const N = 2000, BATCH = 200;
  const all: Array<Promise<string>> = [];
  for (let i = 0; i < N; i += BATCH) {
    const batch = await Promise.all(Array.from({ length: Math.min(BATCH, N - i) }, () => open()));
    all.push(...batch.map((c) => c.closed));
  }
  t.equal(all.length, N, `${N} connections open`);
  const answers = await within(Promise.all(all), 30_000, `closing ${N} silent connections`);
  t.equal(answers.length, N, 'every one closed by the server');
  t.ok(answers.every((a) => a === '' || /^HTTP\/1\.1 408 /.test(a)), 'each got at most a 408');
  // the server's side of each closes as the client's FIN arrives: wait for its count to fall, with a deadline
  const connections = () => new Promise<number>((r, rej) => srv.http.getConnections((err, n) => (err ? rej(err) : r(n))));
  const deadline = Date.now() + 10_000;
  let count = await connections();
  while (count > 5 && Date.now() < deadline) { await new Promise((r) => setTimeout(r, 50)); count = await connections(); }
  t.ok(count <= 5, `the server holds ${count} connections afterwards (at most the WebSocket listener)`);
});

t.test('a head sent a byte at a time (slowloris) is cut at the head deadline', async (t) => {
  const { socket, closed } = await open();
  const head = 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'a'.repeat(10_000);
  let i = 0;
  const drip = setInterval(() => { if (!socket.destroyed) socket.write(head[i++ % head.length]); }, 20);
  const answer = await within(closed, 15_000, 'slowloris');
  clearInterval(drip);
  t.match(answer, /^HTTP\/1\.1 408 /, '408 request_timeout');
  t.match(answer, /"code":"request_timeout"/);
});

t.test('a body that trickles is cut at the request deadline', async (t) => {
  const { socket, closed } = await open();
  socket.write('POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{');
  const drip = setInterval(() => { if (!socket.destroyed) socket.write(' '); }, 20);
  const answer = await within(closed, 15_000, 'trickling body');
  clearInterval(drip);
  t.ok(answer === '' || /^HTTP\/1\.1 408 /.test(answer), `closed (${answer.split('\r\n')[0] || 'no answer'})`);
});

t.test('an idle kept-alive connection is closed after its request was answered', async (t) => {
  const { socket, closed } = await open();
  socket.write('GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n');
  const answer = await within(closed, 15_000, 'idle keep-alive');
  t.match(answer, /^HTTP\/1\.1 200 /, 'answered first');
  t.match(answer, /Keep-Alive: timeout=\d+/i, 'the idle limit is announced');
});

t.test('a live-stream WebSocket opened before all of that is still open and receiving', async (t) => {
  t.ok(listener.ws, 'upgraded');
  t.equal(listener.ws!.readyState, listener.ws!.OPEN);
  await srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: 'still', value: 'here' });
  const got = await listener.c!.until((g) => g.some((m) => m.key === 'still'), 'the item');
  t.ok(got.length >= 1);
  listener.ws!.close();
});

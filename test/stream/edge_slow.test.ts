import t from 'tap';
import type { Socket } from 'node:net';
import { login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { closed, connect, insertCall, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;
const jwt = await login(srv.baseUrl);
const auth = { authorization: `Bearer ${jwt}` };
const url = (callId: string) => wsUrl(srv.baseUrl, `/calls/${callId}/stream`);

t.test('a listener that stops reading is dropped with 4008; the call and the other listener carry on', async (t) => {
  deps.stream.edge.configure({ maxBufferedBytes: 256 * 1024, closeGraceMs: 30_000 });
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const fast = await connect(url(callId), auth);
  const slow = await connect(url(callId), auth);
  const slowClosed = closed(slow.ws!);
  // Stop reading: the kernel buffers fill, then the server-side socket buffer grows past the bound.
  const rawSocket = (slow.ws as unknown as { _socket: Socket })._socket;
  rawSocket.pause();
  t.equal(deps.stream.edge.stats.listeners, 2);
  const text = 'x'.repeat(32 * 1024);
  let published = 0;
  // Bounded: far more than loopback buffers hold (a few MiB), stop as soon as the slow one is gone.
  while (published < 1500 && deps.stream.edge.stats.listeners === 2) {
    await deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'caller', text, latencyMs: 1, partial: false });
    published++;
    // A real call yields between items (they are seconds apart); PGlite alone would never let sockets flush.
    await new Promise((r) => setImmediate(r));
  }
  t.equal(deps.stream.edge.stats.listeners, 1, `slow listener evicted after ${published} items`);
  for (let i = 0; i < 5; i++) {
    await deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: 'after', value: String(i) });
    published++;
  }
  const got = await fast.c!.until((g) => g.length >= published, 'fast listener');
  t.same(got.map((m) => m.seq), Array.from({ length: published }, (_, i) => i + 1), 'fast listener got everything in order');
  rawSocket.resume();
  const { code, reason } = await slowClosed;
  t.equal(code, 4008);
  t.equal(reason, 'slow_consumer');
  const seen = slow.c!.got.map((m) => m.seq);
  t.same(seen, Array.from({ length: seen.length }, (_, i) => i + 1), 'what it did get is a gap-free prefix (resume with after_seq)');
  t.ok(seen.length < published);
  fast.ws!.close();
});

t.test('heartbeats terminate peers that stop answering pings, and keep live ones', async (t) => {
  // a live peer must pong within one interval; the client shares this process, so a stall longer than it looks dead
  deps.stream.edge.configure({ pingIntervalMs: 400 });
  t.teardown(() => deps.stream.edge.configure({ pingIntervalMs: 25_000 }));
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const live = await connect(url(callId), auth);
  let pings = 0;
  live.ws!.on('ping', () => pings++);
  const dead = await connect(url(callId), auth, { autoPong: false });
  const deadClosed = closed(dead.ws!);
  const { code } = await deadClosed;
  t.equal(code, 1006, 'dead peer cut without a close handshake');
  // Wait for a few more heartbeat rounds (polling, not a fixed sleep: timers run late on a loaded machine).
  const target = pings + 3;
  while (pings < target) await new Promise((r) => setTimeout(r, 20));
  t.ok(pings >= 3, `live peer was pinged (${pings}) and kept`);
  t.equal(live.ws!.readyState, live.ws!.OPEN);
  t.equal(deps.stream.edge.stats.listeners, 1);
  live.ws!.close();
});

t.test('server shutdown closes listeners with 1001', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const l = await connect(url(callId), auth);
  const c = closed(l.ws!);
  await srv.close();
  t.same(await c, { code: 1001, reason: 'server_shutdown' });
});

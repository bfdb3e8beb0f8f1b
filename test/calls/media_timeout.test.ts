/**
 * A call whose carrier media never arrives in time fails with media_timeout; a stream that shows up after that
 * is refused (1008) instead of being held open with no call attached, and shutdown ends any carrier socket left.
 */
import t from 'tap';
import WebSocket from 'ws';
import { API_KEY, api, startTestServer } from '../helpers/server.js';
import type { Db } from '../../src/db/db.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const engine = srv.services.callEngine;
// the runner's deps: a short media wait; and the simulated carrier's callees never dial in by themselves
const deps = (engine.runner as unknown as { d: { mediaWaitMs?: number; db: Db } }).d;
deps.mediaWaitMs = 300;
const carrierOpts = (srv.services.adapters.simCarrier as unknown as { opts: { callees: { launch(o: unknown): void } } }).opts;
// the runner's end of the call is held at its last step (the move to 'failed', which stores the status and its
// live item) after that statement committed, until the test says so: the late stream arrives while the runner
// still lists the call, the window where it used to be accepted
let release!: () => void;
const held = new Promise<void>((r) => { release = r; });
const db = deps.db;
deps.db = {
  kind: db.kind, exec: (sql) => db.exec(sql), close: () => db.close(), transaction: (fn) => db.transaction(fn),
  query: async (sql, params) => {
    const out = await db.query(sql, params);
    if (String(params?.[0]).includes('"to_status":"failed"')) await held; // the batched move's items (JSON)
    return out;
  },
} as Db;
const launched: Array<{ callId: string; carrierCallId: string; mediaUrl: string; parameters: Record<string, string> }> = [];
carrierOpts.callees = { ...carrierOpts.callees, launch: (o) => { launched.push(o as (typeof launched)[number]); } };

async function waitFor<T>(f: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('no media in time: failed/media_timeout; the late stream is refused with 1008', async (t) => {
  const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+14155550123', agent_id: 'default' } });
  t.equal(r.status, 201);
  const call = await waitFor(async () => {
    const c = await api(srv.baseUrl, 'GET', `/calls/${r.body.id}`, { headers: { 'x-api-key': API_KEY } });
    return c.body.status === 'failed' ? c.body : undefined;
  });
  t.equal(call.ended_reason, 'media_timeout');
  t.ok(engine.runner.live.has(r.body.id), 'the runner is still ending the call');
  const req = launched.find((l) => l.callId === r.body.id)!;
  t.ok(req, 'the callee was launched');
  const ws = new WebSocket(req.mediaUrl);
  await new Promise((res) => ws.once('open', res));
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(JSON.stringify({ event: 'start', sequenceNumber: '1', streamSid: 'MZlate', start: { accountSid: 'ACsim', streamSid: 'MZlate',
    callSid: req.carrierCallId, tracks: ['inbound'], customParameters: req.parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
  const code = await Promise.race([new Promise<number>((res) => ws.once('close', (c) => res(c))), new Promise<string>((res) => setTimeout(() => res('still open after 3 s'), 3000))]);
  t.equal(code, 1008, 'unknown call: closed at once');
  release();
  ws.terminate();
});

t.test('shutdown closes carrier sockets no call holds', async (t) => {
  const ws = new WebSocket(`${srv.baseUrl.replace(/^http/, 'ws')}/media/twilio`);
  await new Promise((res) => ws.once('open', res));
  const closed = new Promise<number>((res) => ws.once('close', (c) => res(c)));
  await engine.close();
  t.equal(await closed, 1001);
});

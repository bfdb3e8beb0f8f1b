import t from 'tap';
import { login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { callChannel } from '../../src/stream/sink.js';
import { closed, connect, insertCall, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;
const jwt = await login(srv.baseUrl);
const auth = { authorization: `Bearer ${jwt}` };
const url = (callId: string, q = '') => wsUrl(srv.baseUrl, `/calls/${callId}/stream${q}`);
const seqs = (got: any[]) => got.filter((m) => m.type !== 'error').map((m) => m.seq);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const say = (callId: string, i: number) =>
  deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: i % 2 ? 'caller' : 'agent', text: `line ${i}`, latencyMs: i, partial: false });

t.test('listeners joining while the call talks get everything once, in order', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const total = 200;
  const joins: Array<Promise<Awaited<ReturnType<typeof connect>>>> = [];
  // Publish without pauses; listeners attach at different points, several of them mid-burst.
  const publishing = (async () => {
    for (let i = 1; i <= total; i++) {
      const p = say(callId, i);
      if (i % 40 === 0) joins.push(connect(url(callId), auth));
      await p;
    }
  })();
  joins.push(connect(url(callId), auth));
  await publishing;
  joins.push(connect(url(callId), auth));
  const listeners = await Promise.all(joins);
  t.equal(listeners.length, 7);
  for (const [i, l] of listeners.entries()) {
    const got = await l.c!.until((g) => g.length >= total, `listener ${i}`);
    t.same(seqs(got), range(1, total), `listener ${i}: 1..${total}, no gap, no duplicate`);
    t.equal(got[41].text, 'line 42');
  }
  for (const l of listeners) l.ws!.close();
});

t.test('after_seq resumes exactly after the given seq', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  for (let i = 1; i <= 10; i++) await say(callId, i);
  const { ws, c } = await connect(url(callId, '?after_seq=7'), auth);
  await say(callId, 11);
  const got = await c!.until((g) => g.length >= 4);
  t.same(seqs(got), [8, 9, 10, 11]);
  const beyond = await connect(url(callId, '?after_seq=11'), auth);
  await say(callId, 12);
  t.same(seqs(await beyond.c!.until((g) => g.length >= 1)), [12], 'nothing old, then live');
  ws!.close(); beyond.ws!.close();
});

t.test('out-of-order and lost bus messages are repaired from storage', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const { ws, c } = await connect(url(callId), auth);
  // Simulate another instance's publishes arriving out of order and one never arriving: store directly,
  // then put only some on the bus, late and reversed.
  const stored = [];
  for (let i = 1; i <= 5; i++) stored.push(await deps.stream.store.append(DEV_TENANT_ID, callId, { type: 'entity', key: `k${i}`, value: String(i) }));
  await deps.bus.publish(callChannel(callId), stored[4]);
  await deps.bus.publish(callChannel(callId), stored[2]);
  const got = await c!.until((g) => g.length >= 5);
  t.same(seqs(got), [1, 2, 3, 4, 5], 'seq 5 arriving first pulled 1..4 from storage; the late 3 was dropped');
  await say(callId, 6);
  t.same(seqs(await c!.until((g) => g.length >= 6)), [1, 2, 3, 4, 5, 6]);
  ws!.close();
});

t.test('the socket closes with 1000 call_ended after the terminal status; late joiners get the history then 1000', async (t) => {
  deps.stream.edge.configure({ endLingerMs: 50 });
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const { ws, c } = await connect(url(callId), auth);
  const end = closed(ws!);
  await say(callId, 1);
  await deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'status', status: 'completed', ended_reason: 'hangup' });
  t.same(await end, { code: 1000, reason: 'call_ended' });
  t.same(c!.got.map((m) => m.type), ['transcript', 'status']);
  await deps.db.query("UPDATE calls SET status = 'completed' WHERE id = $1", [callId]);
  const late = await connect(url(callId), auth);
  t.same(await closed(late.ws!), { code: 1000, reason: 'call_ended' });
  t.same(seqs(late.c!.got), [1, 2]);
});

t.test('bad client messages get an error reply and keep the socket open', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const { ws, c } = await connect(url(callId), auth);
  ws!.send('not json');
  ws!.send(JSON.stringify({ type: 'subscribe' }));
  ws!.send(JSON.stringify({ type: 'transfer', target: '12345' }));
  const got = await c!.until((g) => g.length >= 3);
  t.same(got.map((m) => m.code), ['malformed_json', 'validation_failed', 'validation_failed']);
  await say(callId, 1);
  t.equal((await c!.until((g) => g.length >= 4))[3].seq, 1, 'still live');
  ws!.close();
});

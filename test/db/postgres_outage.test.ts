/**
 * A PostgreSQL outage answered 500 and lost what live calls produced meanwhile ("live item not published",
 * "message not stored"): stored transcripts had gaps and listeners never saw those items. Against a server of
 * its own, this test stops PostgreSQL under a running service: requests answer 503 `unavailable` with
 * Retry-After, and the live items and conversation messages a call produces during the outage are kept and
 * written and published, in order, once the server is back.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { findPgBin, startPgServer } from './pg_server.js';
import { ConversationRepo } from '../../src/repos/conversations.js';
import { outageBufferOf } from '../../src/db/outage.js';
import { callChannel } from '../../src/stream/sink.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { insertCall } from '../stream/helpers.js';
import type { CallEventMessage } from '../../src/stream/types.js';

const bin = await findPgBin();
if (!bin) {
  t.plan(0, 'PostgreSQL binaries (initdb, pg_ctl) are not installed under /usr/lib/postgresql/*/bin');
} else {
  const pg = await startPgServer(bin);
  t.teardown(() => pg.destroy());
  const srv = await startTestServer({ databaseUrl: pg.url, env: { SIM_TIME_SCALE: '10' } });
  t.teardown(() => srv.close());
  const { db, callEvents, bus } = srv.services;
  const token = await login(srv.baseUrl);

  t.test('an outage: 503 with Retry-After, and nothing a live call produced is lost', async (t) => {
    const conv = await new ConversationRepo(db).create({ tenantId: DEV_TENANT_ID });
    const callId = await insertCall(srv.services, DEV_TENANT_ID, { conversationId: conv.id });
    const heard: CallEventMessage[] = [];
    const unsubscribe = await bus.subscribe(callChannel(callId), (m) => heard.push(m as CallEventMessage));
    t.teardown(unsubscribe);
    const said = (n: number) => ({ type: 'transcript' as const, speaker: 'caller' as const, text: `line ${n}`, latencyMs: 0, partial: false });
    const callRepo = new ConversationRepo(db, outageBufferOf(db)); // the repo a live call writes its messages with
    await callEvents.publish(DEV_TENANT_ID, callId, said(1));
    await callRepo.append(conv.id, DEV_TENANT_ID, 'caller', 'line 1');

    await pg.stop();
    const during = await api(srv.baseUrl, 'GET', '/calls', { token });
    t.equal(during.status, 503, 'a read answers 503');
    t.match(during.headers.get('content-type'), /application\/problem\+json/);
    t.match(during.body, { code: 'unavailable', status: 503, retryable: true });
    t.ok(Number(during.headers.get('retry-after')) >= 1, 'with Retry-After');
    const write = await api(srv.baseUrl, 'POST', '/leads', { headers: { 'x-api-key': API_KEY }, body: { name: 'Lee', phone: '+919812345678', source: 'web', domain: 'realestate' } });
    t.equal(write.status, 503, 'so does a write');
    t.equal(write.body.code, 'unavailable');

    // what the call produces meanwhile
    const items = [2, 3, 4, 5].map((n) => callEvents.publish(DEV_TENANT_ID, callId, said(n)));
    const messages = [2, 3, 4].map((n) => callRepo.append(conv.id, DEV_TENANT_ID, n % 2 ? 'caller' : 'agent', `line ${n}`));
    for (let i = 0; i < 200 && !outageBufferOf(db).down; i++) await new Promise((r) => setTimeout(r, 20));
    t.equal(outageBufferOf(db).held, 7, 'kept in memory while the database is away');
    t.equal(outageBufferOf(db).down, true);

    await pg.start();
    const stored = await Promise.all(items);
    await Promise.all(messages);
    t.same(stored.map((m) => (m as { text: string }).text), ['line 2', 'line 3', 'line 4', 'line 5']);
    const history = await srv.services.stream.store.after(callId, 0);
    t.same(history.map((m) => (m as { text: string }).text), ['line 1', 'line 2', 'line 3', 'line 4', 'line 5'], 'stored in order');
    t.same(history.map((m) => m.seq), [1, 2, 3, 4, 5], 'no gaps in seq');
    for (let i = 0; i < 100 && heard.length < 5; i++) await new Promise((r) => setTimeout(r, 20));
    t.same(heard.map((m) => m.seq), [1, 2, 3, 4, 5], 'and published to listeners, in order');
    t.same((await callRepo.messages(conv.id)).map((m) => m.text), ['line 1', 'line 2', 'line 3', 'line 4'], 'messages stored in order');
    t.equal(outageBufferOf(db).held, 0);
    const after = await api(srv.baseUrl, 'GET', '/calls', { token });
    t.equal(after.status, 200, 'requests are answered again');
  });

  t.test('a live call through an outage: its transcript, messages and end are written when the database returns', async (t) => {
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+14155550123', agent_id: 'default' } });
    t.equal(d.status, 201);
    const id = d.body.id;
    const textsOf = async () => (await srv.services.stream.store.after(id, 0)).filter((m) => m.type === 'transcript').length;
    for (let i = 0; i < 400 && (await textsOf()) < 1; i++) await new Promise((r) => setTimeout(r, 25));
    await pg.stop(); // mid-call: the agent has spoken, the callee has more to say
    const session = srv.services.callEngine.runner.live.get(id)?.session;
    t.ok(session, 'the call is live');
    t.type(await session!.ended, 'string', 'and runs to its end while the database is away');
    for (let i = 0; i < 200 && outageBufferOf(db).held === 0; i++) await new Promise((r) => setTimeout(r, 25));
    t.ok(outageBufferOf(db).held > 0, `its writes are kept meanwhile (${outageBufferOf(db).held})`);
    t.ok(srv.services.callEngine.runner.live.has(id), 'its end waits for the database too');
    await pg.start();
    let call;
    for (let i = 0; i < 400; i++) {
      call = (await api(srv.baseUrl, 'GET', `/calls/${id}`, { headers: { 'x-api-key': API_KEY } })).body;
      if (call.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    t.equal(call.status, 'completed', 'its end was stored');
    const items = await srv.services.stream.store.after(id, 0);
    t.same(items.map((m) => m.seq), items.map((_, i) => i + 1), 'seqs without gaps');
    t.match(items.at(-1), { type: 'status', status: 'completed' }, 'the end comes after everything the call said');
    const transcript = items.filter((m) => m.type === 'transcript');
    const messages = await new ConversationRepo(db).messages(call.conversation_id);
    t.same(messages.filter((m) => m.role !== 'system').map((m) => m.text).slice(-transcript.length),
      transcript.map((m) => (m as { text: string }).text), 'every transcript line is also a conversation message, in order');
    t.ok(call.metrics && call.metrics.turn_count >= 1, 'the outcome (metrics) was stored');
  });
}

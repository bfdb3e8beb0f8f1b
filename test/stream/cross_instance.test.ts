import t from 'tap';
import { login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { connect, insertCall, wsUrl } from './helpers.js';
import { isTerminal } from '../../src/calls/types.js';

// Two service instances sharing one PostgreSQL schema and one Redis: the call's events are published by one
// process and listened to on the other.
const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (two processes cannot share the embedded PGlite or the in-process bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  const a = await startTestServer();
  t.teardown(() => a.close());
  const b = await startTestServer({ databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  const jwtFromA = await login(a.baseUrl);

  t.test('published on instance A, heard on instance B (token issued by A)', async (t) => {
    const callId = await insertCall(a.services, DEV_TENANT_ID);
    await a.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'agent', text: 'early', latencyMs: 1, partial: false });
    const onB = await connect(wsUrl(b.baseUrl, `/calls/${callId}/stream?access_token=${jwtFromA}`));
    t.ok(onB.ws, 'B accepts the token and finds the call in shared storage');
    await a.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: 'site_visit', value: '2026-11-23T10:00:00+05:30' });
    await a.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'escalation', reason: 'caller asked for a human' });
    const got = await onB.c!.until((g) => g.length >= 3);
    t.same(got.map((m) => [m.seq, m.type]), [[1, 'transcript'], [2, 'entity'], [3, 'escalation']]);
    onB.ws!.close();
  });

  const engine = (a.services as unknown as { calls?: { dispatch?: (tenantId: string, input: { to: string; agent_id?: string }) => Promise<{ id: string }> } }).calls;
  t.test('a real call dispatched on A (callee answers one question, then hangs up), listened to on B until it ends', { skip: !engine?.dispatch && 'the call engine (deps.calls) is not in this build yet' }, async (t) => {
    const call = await engine!.dispatch!(DEV_TENANT_ID, { to: '+15005550005', agent_id: 'default' });
    const onB = await connect(wsUrl(b.baseUrl, `/calls/${call.id}/stream`), { authorization: `Bearer ${jwtFromA}` });
    const end = await new Promise<number>((r) => onB.ws!.once('close', (code) => r(code)));
    t.equal(end, 1000, 'closed as call_ended');
    const got = onB.c!.got;
    t.same(got.map((m) => m.seq), got.map((_, i) => i + 1), 'every item once, in order');
    t.ok(got.some((m) => m.type === 'transcript'), 'transcripts heard on B');
    const last = got.at(-1);
    t.ok(last?.type === 'status' && isTerminal(last.status), `ends with a terminal status (${last?.status})`);
  });

  t.test('both instances publishing to one call concurrently: unique seqs, every listener gets them all in order', async (t) => {
    const callId = await insertCall(a.services, DEV_TENANT_ID);
    const url = (srv: typeof a) => wsUrl(srv.baseUrl, `/calls/${callId}/stream`);
    const onA = await connect(url(a), { authorization: `Bearer ${jwtFromA}` });
    const onB = await connect(url(b), { authorization: `Bearer ${jwtFromA}` });
    const n = 100;
    const publish = (srv: typeof a, tag: string) => Promise.all(Array.from({ length: n }, (_, i) =>
      srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: tag, value: String(i) })));
    const [fromA, fromB] = await Promise.all([publish(a, 'a'), publish(b, 'b')]);
    const all = [...fromA, ...fromB].map((m) => m.seq).sort((x, y) => x - y);
    t.same(all, Array.from({ length: 2 * n }, (_, i) => i + 1), 'seqs 1..200 with no collision across processes');
    for (const [name, l] of [['A', onA], ['B', onB]] as const) {
      const got = await l.c!.until((g) => g.length >= 2 * n, name);
      t.same(got.map((m) => m.seq), all, `listener on ${name}: all, once, in order`);
    }
    onA.ws!.close(); onB.ws!.close();
  });
}

import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { insertCall, otherTenant } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;

t.test('concurrent publishers get distinct consecutive seqs, stored and published in order', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const seen: number[] = [];
  const unsub = await deps.bus.subscribe(`call:${callId}`, (m) => seen.push((m as { seq: number }).seq));
  const n = 40;
  const out = await Promise.all(Array.from({ length: n }, (_, i) =>
    deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'agent', text: `line ${i}`, latencyMs: i, partial: false })));
  t.same(out.map((m) => m.seq).sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1));
  t.equal(out[0].call_id, callId);
  t.match(out[0].at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const stored = await deps.stream.store.after(callId, 0);
  t.same(stored.map((m) => m.seq), Array.from({ length: n }, (_, i) => i + 1));
  t.same(stored[3], out[3], 'stored message equals the published one');
  while (seen.length < n) await new Promise((r) => setTimeout(r, 10));
  t.same(seen, Array.from({ length: n }, (_, i) => i + 1), 'bus order is seq order within one process');
  unsub();
});

t.test('concurrent appends straight to the store (no in-process chain) never collide', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  const out = await Promise.all(Array.from({ length: 30 }, () =>
    deps.stream.store.append(DEV_TENANT_ID, callId, { type: 'entity', key: 'k', value: 'v' })));
  t.same(out.map((m) => m.seq).sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i + 1));
  t.equal(await deps.stream.store.lastSeq(callId), 30);
});

t.test('a call of another tenant or an unknown call is refused, nothing stored', async (t) => {
  const other = await otherTenant(deps);
  const callId = await insertCall(deps, other.tenantId);
  await t.rejects(deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'escalation', reason: 'x' }), { code: 'not_found' });
  await t.rejects(deps.callEvents.publish(DEV_TENANT_ID, 'call_missing', { type: 'escalation', reason: 'x' }), { code: 'not_found' });
  t.same(await deps.stream.store.after(callId, 0), []);
  const ok = await deps.callEvents.publish(other.tenantId, callId, { type: 'escalation', reason: 'wants a human' });
  t.equal(ok.seq, 1, 'a failed attempt does not burn a seq');
  t.same(ok, { type: 'escalation', reason: 'wants a human', call_id: callId, seq: 1, at: ok.at });
});

t.test('unknown item types are refused', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID);
  await t.rejects(deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'bogus' } as never), { code: 'validation_failed' });
});

t.test('publishes of many calls at once are grouped, and a refused item does not sink its batch', async (t) => {
  const other = await otherTenant(deps);
  const mine = await Promise.all(Array.from({ length: 25 }, () => insertCall(deps, DEV_TENANT_ID)));
  const foreign = await insertCall(deps, other.tenantId);
  const rs = await Promise.allSettled([
    ...mine.flatMap((id) => [1, 2, 3].map((i) => deps.callEvents.publish(DEV_TENANT_ID, id, { type: 'entity', key: 'n', value: String(i) }))),
    deps.callEvents.publish(DEV_TENANT_ID, foreign, { type: 'entity', key: 'n', value: 'x' }),
    deps.callEvents.publish(DEV_TENANT_ID, mine[0], { type: 'bogus' } as never),
  ]);
  t.equal(rs.filter((r) => r.status === 'fulfilled').length, 75, "every item of this tenant's calls stored");
  t.match(rs.slice(75).map((r) => (r as PromiseRejectedResult).reason), [{ code: 'not_found' }, { code: 'validation_failed' }]);
  for (const id of mine) {
    const items = await deps.stream.store.after(id, 0);
    t.same(items.map((m) => [m.seq, (m as { value: string }).value]), [[1, '1'], [2, '2'], [3, '3']], 'per call: seq order is publish order');
  }
  t.same(await deps.stream.store.after(foreign, 0), [], 'nothing stored on the other tenant\'s call');
});

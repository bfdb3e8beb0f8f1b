/**
 * A call's transitions since migration 049 are its status items (is_transition, from_status, reason), and the
 * rows of call_transitions stored before it stay readable: the view call_lifecycle gives both, legacy rows first.
 * A call dispatched before the upgrade and moved after it shows its whole lifecycle in GET /v1/calls/<id> and
 * counts as attempted in the KPIs, and the live status items carry nothing new.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { transition } from '../../src/calls/lifecycle.js';
import { computeKpis } from '../../src/analytics/kpis.js';
import { insertCall } from '../stream/helpers.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;

t.test('a call moved across the upgrade: legacy rows, then its status items, in order', async (t) => {
  const id = await insertCall(srv.services, DEV_TENANT_ID, { status: 'queued' });
  // what the code before migration 049 stored for its dispatch: a transition row, a status item not marked
  await db.query(`INSERT INTO call_transitions (call_id, tenant_id, from_status, to_status, reason, at)
    VALUES ($1, $2, NULL, 'queued', 'dispatched', now() - interval '1 minute')`, [id, DEV_TENANT_ID]);
  await db.query(`INSERT INTO call_event_counters (call_id, last_seq) VALUES ($1, 1)`, [id]);
  await db.query(`INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at)
    VALUES ($1, 1, $2, 'status', '{"status":"queued","ended_reason":null}', now() - interval '1 minute')`, [id, DEV_TENANT_ID]);
  // moves by this code
  t.ok(await transition(db, DEV_TENANT_ID, id, 'queued', 'dialing', 'engine'));
  t.ok(await transition(db, DEV_TENANT_ID, id, 'dialing', 'failed', 'carrier_failed'));

  const token = await login(srv.baseUrl);
  const call = await api(srv.baseUrl, 'GET', `/calls/${id}`, { token });
  t.equal(call.status, 200);
  t.same(call.body.transitions.map((x: { from: string | null; to: string; reason: string | null }) => [x.from, x.to, x.reason]), [
    [null, 'queued', 'dispatched'], ['queued', 'dialing', 'engine'], ['dialing', 'failed', 'carrier_failed'],
  ], 'the legacy row, then the two moves, each once');
  const items = await db.query<{ seq: number; payload: unknown; is_transition: boolean }>(
    'SELECT seq, payload, is_transition FROM call_events WHERE call_id = $1 ORDER BY seq', [id]);
  t.same(items.rows, [
    { seq: 1, payload: { status: 'queued', ended_reason: null }, is_transition: false },
    { seq: 2, payload: { status: 'dialing', ended_reason: null }, is_transition: true },
    { seq: 3, payload: { status: 'failed', ended_reason: 'carrier_failed' }, is_transition: true },
  ], 'the live items are as before: origin and reason are columns, not payload');
  t.equal((await db.query('SELECT 1 FROM call_transitions WHERE call_id = $1', [id])).rows.length, 1, 'no new legacy rows');

  // it was dialed, then failed: attempted only through its recorded transition to dialing
  const range = { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000), agentId: null };
  const scoped = await computeKpis(db, DEV_TENANT_ID, range, 60);
  await db.query('DELETE FROM call_events WHERE call_id = $1 AND seq = 2', [id]);
  const without = await computeKpis(db, DEV_TENANT_ID, range, 60);
  t.equal(scoped.attempted - without.attempted, 1, 'the dialing status item is what makes it attempted');
});

t.test('a dispatch stores its first transition as the queued item', async (t) => {
  const token = await login(srv.baseUrl);
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { token, body: { to: '+15005550002', agent_id: 'default' } });
  t.equal(d.status, 201);
  const first = await db.query<{ from_status: string | null; to_status: string; reason: string; era: number; pos: number }>(
    'SELECT from_status, to_status, reason, era, pos FROM call_lifecycle WHERE call_id = $1 ORDER BY era, pos LIMIT 1', [d.body.id]);
  t.same(first.rows, [{ from_status: null, to_status: 'queued', reason: 'dispatched', era: 1, pos: 1 }]);
  t.equal((await db.query('SELECT 1 FROM call_transitions WHERE call_id = $1', [d.body.id])).rows.length, 0);
});

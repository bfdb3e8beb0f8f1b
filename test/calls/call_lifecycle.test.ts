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
import type { CallEventMessage } from '../../src/stream/types.js';

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

t.test('a dispatch stores its first transition as the queued item, and the dialing one with it', async (t) => {
  const token = await login(srv.baseUrl);
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { token, body: { to: '+15005550002', agent_id: 'default' } });
  t.equal(d.status, 201);
  const first = await db.query<{ from_status: string | null; to_status: string; reason: string; era: number; pos: number }>(
    'SELECT from_status, to_status, reason, era, pos FROM call_lifecycle WHERE call_id = $1 ORDER BY era, pos LIMIT 1', [d.body.id]);
  t.same(first.rows, [{ from_status: null, to_status: 'queued', reason: 'dispatched', era: 1, pos: 1 }]);
  t.equal((await db.query('SELECT 1 FROM call_transitions WHERE call_id = $1', [d.body.id])).rows.length, 0);
});

t.test('a dispatch this instance dials is stored dialing with both items, and the runner adds no second dialing', async (t) => {
  const token = await login(srv.baseUrl);
  const seen: Array<{ call_id: string; seq: number; status?: string }> = [];
  const announce = srv.services.callEvents.announce.bind(srv.services.callEvents);
  srv.services.callEvents.announce = (m: CallEventMessage) => { seen.push({ call_id: m.call_id, seq: m.seq, status: (m as { status?: string }).status }); announce(m); };
  t.teardown(() => { srv.services.callEvents.announce = announce; });
  // +15005550002 is the simulator's busy number: the call ends at once, after the carrier's answer
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { token, body: { to: '+15005550002', agent_id: 'default' } });
  t.equal(d.status, 201);
  t.equal(d.body.status, 'dialing', 'the answer says what is stored');
  let call: { status: string; transitions: Array<{ from: string | null; to: string; reason: string }> } = d.body;
  for (let i = 0; i < 200 && call.status === 'dialing'; i++) {
    await new Promise((r) => setTimeout(r, 10));
    call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, { token })).body;
  }
  t.equal(call.status, 'busy');
  t.same(call.transitions.map((x) => [x.from, x.to, x.reason]), [[null, 'queued', 'dispatched'], ['queued', 'dialing', 'dialing'], ['dialing', 'busy', 'busy']]);
  const rows = await db.query<{ seq: number; status: string }>(`SELECT seq, payload->>'status' AS status FROM call_events WHERE call_id = $1 ORDER BY seq`, [d.body.id]);
  t.same(rows.rows, [{ seq: 1, status: 'queued' }, { seq: 2, status: 'dialing' }, { seq: 3, status: 'busy' }], 'one item per status, in seq order');
  const counter = await db.query<{ last_seq: number }>('SELECT last_seq FROM call_event_counters WHERE call_id = $1', [d.body.id]);
  t.equal(Number(counter.rows[0].last_seq), 3, 'the counter took both items of the dispatch');
  // each item announced once: the first two by the dispatch, the third by the runner
  t.same(seen.filter((s) => s.call_id === d.body.id).map(({ seq, status }) => ({ seq, status })),
    [{ seq: 1, status: 'queued' }, { seq: 2, status: 'dialing' }, { seq: 3, status: 'busy' }]);
});

t.test('dispatch_calls without `dialing` (no runner here) stores the call queued, as before migration 050', async (t) => {
  const id = 'call_' + 'b'.repeat(24);
  const item = { i: 0, id, tenant: DEV_TENANT_ID, agent_key: 'default', agent: null, agent_id: null, to_number: '+15005550002',
    language: null, context: {}, tools: [], webhook_url: null, conversation_id: null, new_conversation_id: 'conv_' + 'b'.repeat(24),
    lead_id: null, lead_job_id: null, campaign_id: null, scenario: null };
  const r = await db.query<{ o_outcome: string }>('SELECT o_outcome FROM dispatch_calls($1::jsonb, $2, $3)', [JSON.stringify([item]), 'test-instance', 1000]);
  t.same(r.rows, [{ o_outcome: 'ok' }]);
  const call = await db.query<{ status: string }>('SELECT status FROM calls WHERE id = $1', [id]);
  t.equal(call.rows[0].status, 'queued');
  const items = await db.query<{ seq: number; status: string }>(`SELECT seq, payload->>'status' AS status FROM call_events WHERE call_id = $1 ORDER BY seq`, [id]);
  t.same(items.rows, [{ seq: 1, status: 'queued' }]);
  await db.query(`UPDATE calls SET status = 'canceled' WHERE id = $1`, [id]); // frees its slot for the other tests
});

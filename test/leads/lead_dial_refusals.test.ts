/**
 * A lead dialed in its own statement (migration 045) when the call engine refuses the call: over the tenant's
 * concurrency limit the lead waits for the scheduler's retry (a pending job, no call stored); without an agent to
 * call with it fails. Simultaneous leads share one limit: exactly `limit` calls are stored.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { RETRY_DELAY_MS } from '../../src/leads/dispatcher.js';
import { recordingCalls, setClock, userToken } from '../helpers/lead_fixtures.js';

const LIMIT = 3;
const srv = await startTestServer({ env: { LEAD_SCHEDULER_TICK_MS: '0', MAX_CONCURRENT_CALLS_PER_TENANT: String(LIMIT) } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const calls = recordingCalls(srv); // stored calls stay 'queued', so each one holds a slot of the limit
const DAY = '2026-01-12T06:00:00Z'; // 11:30 IST
setClock(srv, DAY);
const lead = (phone: string) => ({ name: 'Ravi', phone, source: 'web_form', domain: 'realestate' });

t.test('simultaneous leads over the concurrency limit: `limit` calls, the rest scheduled for a retry', async (t) => {
  const phones = Array.from({ length: LIMIT + 3 }, (_, i) => `+91981234${String(5700 + i)}`);
  const rs = await Promise.all(phones.map((p) => api(b, 'POST', '/leads', { token: admin, body: lead(p) })));
  t.same(rs.map((r) => r.status), phones.map(() => 201));
  const dialed = rs.filter((r) => r.body.call.status === 'dispatched');
  const waiting = rs.filter((r) => r.body.call.status === 'scheduled');
  t.equal(dialed.length, LIMIT, 'exactly the limit dialed');
  t.equal(waiting.length, 3);
  t.equal(calls.dispatched.length, LIMIT, 'only stored calls are started');
  const retryAt = new Date(new Date(DAY).getTime() + RETRY_DELAY_MS).toISOString();
  for (const r of waiting) {
    t.same(r.body.call, { status: 'scheduled', reason: 'retry:concurrency_limited', scheduled_for: retryAt });
    const jobs = await srv.services.db.query<{ status: string; due_at: Date | string }>('SELECT status, due_at FROM lead_call_jobs WHERE lead_id = $1', [r.body.id]);
    t.same(jobs.rows.map((j) => [j.status, new Date(j.due_at).toISOString()]), [['pending', retryAt]], 'the scheduler retries it');
    t.same((await api(b, 'GET', `/leads/${r.body.id}`, { token: admin })).body.call, r.body.call, 'as stored');
  }
  const stored = await srv.services.db.query<{ lead_id: string }>(`SELECT lead_id FROM calls WHERE tenant_id = 'ten_dev' ORDER BY lead_id`);
  t.same(stored.rows.map((c) => c.lead_id), dialed.map((r) => r.body.id).sort(), 'a call is stored for the dialed leads only');
  for (const r of waiting) {
    const conv = await api(b, 'GET', `/conversations/${r.body.conversation_id}`, { token: admin });
    t.equal(conv.body.call_id, null, 'its conversation has no call');
  }
});

t.test('no agent to call with: the lead is kept and its call failed', async (t) => {
  const token = await userToken(srv, 'ten_noagent', 'admin@noagent.example', 'admin');
  await srv.services.db.query(`DELETE FROM agents WHERE tenant_id = 'ten_noagent'`);
  const r = await api(b, 'POST', '/leads', { token, body: lead('+919812346800') });
  t.equal(r.status, 201);
  t.same(r.body.call, { status: 'failed', reason: 'agent_not_found' });
  const conv = await api(b, 'GET', `/conversations/${r.body.conversation_id}`, { token });
  t.equal(conv.body.messages[0].meta.kind, 'disclosure', 'the disclosure conversation is kept');
  const stored = await srv.services.db.query(`SELECT id FROM calls WHERE tenant_id = 'ten_noagent'`);
  t.equal(stored.rows.length, 0);
});

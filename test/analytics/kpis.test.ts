/**
 * KPI definitions and analytics numbers against hand-computed fixtures inserted straight into calls.
 * Fixture (range 2026-01-10 .. 2026-01-13, agents kpi_a and kpi_b):
 *   #1 queued, #2 blocked, #4 failed before dialing      -> not attempted
 *   #3 failed after dialing, #5 no_answer, #6 busy, #10 canceled after dialing -> attempted only
 *   #7 completed, score 80, calendar 200_created          -> attempted, connected, qualified, booked
 *   #8 completed, score 59, calendar 500_error, escalated -> attempted, connected
 *   #9 completed, score 60 (boundary), calendar 201 (kpi_b) -> attempted, connected, qualified, booked
 *   #11 in_progress, score "75" (numeric string)           -> attempted, connected, qualified
 *   #12 outside the range, #13 another tenant             -> not counted
 * => attempted 8, connected 4, qualified 3, booked 2.
 */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { insertCall } from '../helpers/rows.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const token = await login(srv.baseUrl);
const other = await makeTenant(srv, 'kpi');
const T = 'ten_dev';
const d10 = '2026-01-10T08:00:00Z', d11 = '2026-01-11T23:59:59Z', d12 = '2026-01-12T10:00:00Z';
const ans = '2026-01-10T09:00:00Z';
const m = (p50: number, p99: number, turns: number, intr: number) => ({ latency_p50_ms: p50, latency_p99_ms: p99, turn_count: turns, interruptions_handled: intr });
const cal = (status: string) => [{ type: 'crm.lead.update', status: '200_ok' }, { type: 'calendar.event.create', status }];

const a = 'kpi_a', b = 'kpi_b', to = '+919822222222';
await insertCall(db, { tenant: T, to, agent_id: a, status: 'queued', created_at: d10 });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'blocked', created_at: d10 });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'failed', created_at: d10, transitions: ['dialing', 'failed'] });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'failed', created_at: d10, transitions: ['failed'] });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'no_answer', created_at: d10 });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'busy', created_at: d10 });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'completed', created_at: d11, answered_at: ans, duration_seconds: 120, metrics: m(300, 900, 10, 2), extracted_data: { qualification_score: 80 }, actions_triggered: cal('200_created') });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'completed', created_at: d11, answered_at: ans, duration_seconds: 60, metrics: m(500, 1500, 5, 0), extracted_data: { qualification_score: 59 }, actions_triggered: cal('500_error'), human_escalation: true });
await insertCall(db, { tenant: T, to, agent_id: b, status: 'completed', created_at: d12, answered_at: ans, duration_seconds: 90, metrics: m(400, 1200, 5, 3), extracted_data: { qualification_score: 60 }, actions_triggered: cal('201_created') });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'canceled', created_at: d12, transitions: ['dialing', 'canceled'] });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'in_progress', created_at: d12, answered_at: ans, extracted_data: { qualification_score: '75' } });
await insertCall(db, { tenant: T, to, agent_id: a, status: 'completed', created_at: '2026-01-13T00:00:00Z', answered_at: ans, extracted_data: { qualification_score: 99 }, actions_triggered: cal('200_ok') });
await insertCall(db, { tenant: other.tenantId, to, agent_id: a, status: 'completed', created_at: d11, answered_at: ans, extracted_data: { qualification_score: 99 }, actions_triggered: cal('200_ok') });

const range = 'from=2026-01-10T00:00:00Z&to=2026-01-13T00:00:00Z';
const near = (tt: { ok(v: boolean, m: string): unknown }, got: number, want: number, msg: string) => tt.ok(Math.abs(got - want) < 1e-9, `${msg}: ${got} ~ ${want}`);

t.test('KPIs over the whole range', async (t) => {
  const r = await api(srv.baseUrl, 'GET', `/kpis?${range}`, { token });
  t.equal(r.status, 200);
  t.match(r.body, { attempted: 8, connected: 4, qualified: 3, booked: 2, from: '2026-01-10T00:00:00.000Z', to: '2026-01-13T00:00:00.000Z' });
  t.ok(r.body.definitions.qualified.includes('60'), 'definitions name the threshold');
});

t.test('KPIs per agent and with the API key', async (t) => {
  t.match((await api(srv.baseUrl, 'GET', `/kpis?${range}&agent_id=${b}`, { token })).body, { attempted: 1, connected: 1, qualified: 1, booked: 1 });
  t.match((await api(srv.baseUrl, 'GET', `/kpis?${range}&agent_id=${a}`, { headers: { 'x-api-key': API_KEY } })).body, { attempted: 7, connected: 3, qualified: 2, booked: 1 });
  t.match((await api(srv.baseUrl, 'GET', `/kpis?${range}`, { token: other.operatorToken })).body, { attempted: 1, connected: 1, qualified: 1, booked: 1 }, 'other tenant sees only its call');
});

t.test('range validation', async (t) => {
  t.equal((await api(srv.baseUrl, 'GET', '/kpis?from=yesterday', { token })).status, 400);
  t.equal((await api(srv.baseUrl, 'GET', '/kpis?from=2026-01-13T00:00:00Z&to=2026-01-10T00:00:00Z', { token })).status, 400);
  t.equal((await api(srv.baseUrl, 'GET', '/analytics?from=2020-01-01T00:00:00Z&to=2026-01-10T00:00:00Z', { token })).status, 400, 'over 366 days');
  t.equal((await api(srv.baseUrl, 'GET', '/kpis?bogus=1', { token })).status, 400);
  t.equal((await api(srv.baseUrl, 'GET', '/kpis')).status, 401);
});

t.test('analytics numbers', async (t) => {
  const r = await api(srv.baseUrl, 'GET', `/analytics?${range}`, { token });
  t.equal(r.status, 200);
  const x = r.body;
  t.same(x.by_status, { blocked: 1, busy: 1, canceled: 1, completed: 3, failed: 2, in_progress: 1, no_answer: 1, queued: 1 });
  t.same(x.by_day, [{ day: '2026-01-10', calls: 6, connected: 0 }, { day: '2026-01-11', calls: 2, connected: 2 }, { day: '2026-01-12', calls: 3, connected: 2 }]);
  t.equal(x.calls, 11);
  t.equal(x.connected, 4);
  near(t, x.avg_duration_seconds, 90, 'avg duration (120, 60, 90)');
  near(t, x.latency_p50_ms, 400, 'p50 of per-call p50 (300, 400, 500)');
  near(t, x.latency_p99_ms, 1494, 'p99 of per-call p99 (900, 1200, 1500): 1200 + 0.98 * 300');
  near(t, x.interruption_rate, 5 / 20, 'interruptions (2+0+3) / turns (10+5+5)');
  near(t, x.escalation_rate, 1 / 4, 'escalated / connected');
  const pa = Object.fromEntries(x.per_agent.map((p: { agent_id: string }) => [p.agent_id, p]));
  t.equal(pa[a].calls, 10);
  near(t, pa[a].latency_p50_ms, 400, 'kpi_a p50 (300, 500)');
  near(t, pa[a].latency_p99_ms, 1494, 'kpi_a p99 (900, 1500): 900 + 0.99 * 600');
  near(t, pa[a].interruption_rate, 0.1333, 'kpi_a interruptions: 2 / 15 reported to 4 decimals');
  near(t, pa[a].escalation_rate, 0.3333, 'kpi_a escalations: 1 / 3 reported to 4 decimals');
  near(t, pa[b].avg_duration_seconds, 90, 'kpi_b duration');
  near(t, pa[b].escalation_rate, 0, 'kpi_b escalations');
  const only = await api(srv.baseUrl, 'GET', `/analytics?${range}&agent_id=${b}`, { token });
  t.same(only.body.by_status, { completed: 1 });
  t.equal(only.body.per_agent.length, 1);
});

t.test('an empty range gives zeros and nulls, not errors', async (t) => {
  const r = await api(srv.baseUrl, 'GET', '/analytics?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z', { token });
  t.equal(r.status, 200);
  t.match(r.body, { calls: 0, connected: 0, avg_duration_seconds: null, latency_p50_ms: null, escalation_rate: null, by_day: [], per_agent: [] });
  t.match((await api(srv.baseUrl, 'GET', '/kpis?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z', { token })).body, { attempted: 0, connected: 0, qualified: 0, booked: 0 });
});

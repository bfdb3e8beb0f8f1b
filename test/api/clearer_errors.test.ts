/**
 * What a new user stumbled on: an API key on a JWT-only route said "missing credentials"; privacy export with both
 * e164 and subject said "Invalid input"; GET /v1/kpis?from=2026-11-01 was refused; analytics answered values like
 * 819.8480000000001.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { insertCall } from '../helpers/rows.js';
import { subjectHash } from '../../src/privacy/subject.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);

t.test('an API key on a JWT-only route says the route needs a user\'s JWT', async (t) => {
  for (const headers of [{ 'x-api-key': API_KEY }, { authorization: `Bearer ${API_KEY}` }] as Record<string, string>[]) {
    const r = await api(srv.baseUrl, 'GET', '/agents', { headers });
    t.equal(r.status, 401);
    t.match(r.body.detail, /needs a user's JWT.*POST \/v1\/auth\/login.*API keys are not accepted/);
  }
  const none = await api(srv.baseUrl, 'GET', '/agents');
  t.match(none.body.detail, /missing credentials: this route needs JWT \(any role\)/);
  const op = await api(srv.baseUrl, 'POST', '/privacy/export', { headers: { 'x-api-key': API_KEY }, body: { e164: '+919800000001' } });
  t.match(op.body.detail, /needs a user's JWT/);
});

t.test('privacy export and erase with both e164 and subject, or neither: give exactly one', async (t) => {
  for (const path of ['/privacy/export', '/privacy/erase']) {
    for (const body of [{ e164: '+919800000001', subject: subjectHash('+919800000001') }, {}]) {
      const r = await api(srv.baseUrl, 'POST', path, { token: admin, body });
      t.equal(r.status, 400, `${path} ${JSON.stringify(body)}`);
      t.match(r.body.detail, /exactly one of e164 .* or subject/);
    }
  }
  t.equal((await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { e164: '+919800000001' } })).status, 200);
  t.equal((await api(srv.baseUrl, 'POST', '/privacy/export', { token: admin, body: { subject: subjectHash('+919800000001') } })).status, 200);
});

t.test('KPIs and analytics take dates (midnight UTC) as well as date-times', async (t) => {
  await insertCall(srv.services.db, { tenant: 'ten_dev', to: '+919800000002', status: 'completed', created_at: '2026-11-10T12:00:00Z', answered_at: '2026-11-10T12:00:05Z' });
  const k = await api(srv.baseUrl, 'GET', '/kpis?from=2026-11-01&to=2026-12-01', { token: admin });
  t.equal(k.status, 200, JSON.stringify(k.body));
  t.match(k.body, { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', connected: 1 });
  const a = await api(srv.baseUrl, 'GET', '/analytics?from=2026-11-01', { token: admin });
  t.equal(a.status, 200);
  t.equal(a.body.from, '2026-11-01T00:00:00.000Z');
  t.equal((await api(srv.baseUrl, 'GET', '/kpis?from=2026-11-01T00:00:00Z', { token: admin })).status, 200, 'date-times still work');
  const bad = await api(srv.baseUrl, 'GET', '/kpis?from=November', { token: admin });
  t.equal(bad.status, 400);
  t.match(bad.body.detail, /ISO 8601 date \(2026-11-01/);
});

t.test('analytics values are rounded: 0.1 s and 0.1 ms, rates to 4 decimals', async (t) => {
  const tenant = 'ten_dev';
  const day = '2026-10-05T10:00:00Z';
  const metrics = (p50: number, p99: number, turns: number, interruptions: number) => ({ latency_p50_ms: p50, latency_p99_ms: p99, turn_count: turns, interruptions_handled: interruptions });
  await insertCall(srv.services.db, { tenant, to: '+919800000010', status: 'completed', created_at: day, answered_at: day, duration_seconds: 1, metrics: metrics(819.848, 900.1, 3, 1), human_escalation: true });
  await insertCall(srv.services.db, { tenant, to: '+919800000011', status: 'completed', created_at: day, answered_at: day, duration_seconds: 1, metrics: metrics(700.2, 950.05, 3, 0) });
  await insertCall(srv.services.db, { tenant, to: '+919800000012', status: 'completed', created_at: day, answered_at: day, duration_seconds: 2, metrics: metrics(650.01, 999.99, 3, 0) });
  const out = (await api(srv.baseUrl, 'GET', '/analytics?from=2026-10-01&to=2026-11-01', { token: admin })).body;
  t.equal(out.avg_duration_seconds, 1.3, '4/3 s');
  t.equal(out.latency_p50_ms, 700.2);
  t.equal(out.interruption_rate, 0.1111, '1/9');
  t.equal(out.escalation_rate, 0.3333, '1/3');
  for (const v of [out.avg_duration_seconds, out.latency_p50_ms, out.latency_p99_ms, ...out.per_agent.flatMap((x: Record<string, number>) => [x.latency_p99_ms, x.interruption_rate])]) {
    t.ok((String(v).split('.')[1]?.length ?? 0) <= 4, `${v} is rounded`);
  }
});

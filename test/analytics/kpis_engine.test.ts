/**
 * KPIs over calls the real engine made (SIM_TIME_SCALE 100): a cooperative callee with calendar_booking, a busy
 * line and a no-answer. The expected counts are computed in JS from the public call records (an independent
 * reading of the definitions) and must equal the SQL.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', SIM_TIME_SCALE: '100' } });
t.teardown(() => srv.close());
const ENDED = ['completed', 'failed', 'no_answer', 'busy', 'canceled', 'blocked'];

interface CallRec { status: string; answered_at: string | null; extracted_data: { qualification_score?: number } | null; actions_triggered: Array<{ type: string; status: string }> | null }

t.test('KPIs agree with the call records', async (t) => {
  const token = await login(srv.baseUrl);
  const from = new Date(Date.now() - 1000).toISOString();
  const ids: string[] = [];
  for (const to of ['+14155550188', '+15005550002', '+15005550001']) {
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { token, body: { to, agent_id: 'default', tools: ['calendar_booking', 'crm_sync'] } });
    t.equal(d.status, 201);
    ids.push(d.body.id);
  }
  const recs: CallRec[] = [];
  for (const id of ids) {
    let c: CallRec = { status: '' } as CallRec;
    for (let i = 0; i < 600 && !ENDED.includes(c.status); i++) {
      await new Promise((r) => setTimeout(r, 100));
      c = (await api(srv.baseUrl, 'GET', `/calls/${id}`, { token })).body;
    }
    recs.push(c);
  }
  const to = new Date(Date.now() + 1000).toISOString();
  const connected = recs.filter((c) => c.answered_at);
  const want = {
    attempted: recs.filter((c) => ['completed', 'no_answer', 'busy'].includes(c.status) || c.answered_at).length,
    connected: connected.length,
    qualified: connected.filter((c) => (c.extracted_data?.qualification_score ?? -1) >= 60).length,
    booked: recs.filter((c) => (c.actions_triggered ?? []).some((a) => a.type === 'calendar.event.create' && /^2\d\d(_|$)/.test(a.status))).length,
  };
  t.equal(want.attempted, 3, 'all three were dialed');
  t.equal(want.connected, 1, 'one answered');
  const k = await api(srv.baseUrl, 'GET', `/kpis?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { token });
  t.match(k.body, want);
  t.comment(`cooperative call: score ${connected[0]?.extracted_data?.qualification_score}, actions ${JSON.stringify(connected[0]?.actions_triggered)}`);
  const a = await api(srv.baseUrl, 'GET', `/analytics?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, { token });
  t.equal(a.body.calls, 3);
  t.match(a.body.by_status, { busy: 1, no_answer: 1 });
  t.ok(a.body.latency_p50_ms === null || a.body.latency_p50_ms >= 0, 'latency from per-call metrics');
});

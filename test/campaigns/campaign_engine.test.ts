/**
 * The campaign dialer wired to the real call engine (deps.calls with the simulator at SIM_TIME_SCALE 100) and
 * the real gate: simulator magic numbers give no_answer, busy and failed; two cooperative callees complete.
 * The campaign runs to completion at its concurrency; busy/no_answer are retried once (max_attempts 2),
 * failed is not; calls carry campaign_id.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '100', PRIVACY_EXPIRE_INTERVAL_MS: '0', SIM_TIME_SCALE: '100' } });
t.teardown(() => srv.close());
// The gate applies TRAI hours (09:00-21:00) in the callee's zone: run the dialer's clock at 18:00 UTC today
// (13:00 in New York, 10:00 in Los Angeles) so the test does not depend on when it runs.
{
  const d = new Date(); const shift = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 18) - d.getTime();
  srv.services.campaigns.dialer!.clock = () => new Date(Date.now() + shift);
}

t.test('campaign through the real call engine', async (t) => {
  const token = await login(srv.baseUrl);
  const numbers = ['+15005550001', '+15005550002', '+15005550003', '+14155550100', '+14155550101'];
  const contacts = numbers.map((phone, i) => ({ phone, context: { customer_name: `Lee ${i}` } }));
  const r = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: {
    name: 'engine', agent_id: 'default', timezone: 'UTC', calling_window: { start: '00:00', end: '23:59' }, max_concurrency: 2,
    retry: { max_attempts: 2, backoff_minutes: 0, on: ['no_answer', 'busy'] }, contacts } });
  t.equal(r.status, 201);
  t.equal((await api(srv.baseUrl, 'POST', `/campaigns/${r.body.id}/start`, { token })).status, 200);
  let state = '';
  let maxDialing = 0;
  for (let i = 0; i < 600 && state !== 'completed'; i++) {
    const g = await api(srv.baseUrl, 'GET', `/campaigns/${r.body.id}`, { token });
    state = g.body.state;
    maxDialing = Math.max(maxDialing, g.body.progress.dialing);
    await new Promise((res) => setTimeout(res, 100));
  }
  t.equal(state, 'completed');
  t.ok(maxDialing <= 2, `at most 2 dialing (saw ${maxDialing})`);
  const calls = await srv.services.db.query<{ to_number: string; status: string }>('SELECT to_number, status FROM calls WHERE campaign_id = $1', [r.body.id]);
  const per = (n: string) => calls.rows.filter((c) => c.to_number === n).map((c) => c.status);
  t.same(per('+15005550001'), ['no_answer', 'no_answer'], 'no answer: dialed twice');
  t.same(per('+15005550002'), ['busy', 'busy'], 'busy: dialed twice');
  t.same(per('+15005550003'), ['failed'], 'failed: not retried');
  t.same(per('+14155550100'), ['completed'], 'cooperative: once');
  t.same(per('+14155550101'), ['completed'], 'cooperative: once');
  const g = await api(srv.baseUrl, 'GET', `/campaigns/${r.body.id}`, { token });
  t.match(g.body.progress, { done: 2, failed: 3, attempts: 7 });
});

/**
 * A lead calls back, in the simulator (POST /v1/calls/inbound): the number's route picks the tenant, its agent and
 * webhook; the call is known by the caller's lead and last call; it opens with the same AI disclosure; no
 * calling-hours gate applies; it is recorded, streamed live, reported by call.completed with direction inbound and
 * counted in the KPIs. A number nobody routes is refused; a number belongs to one tenant.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';
import { waitFor } from '../providers/live_env.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const { received, url: hookUrl } = await webhookReceiver(t);
const auth = { headers: { 'x-api-key': API_KEY } };
const admin = await login(srv.baseUrl);
const LINE = '+14155550150';
const LEAD = '+14155550123';


t.test('routing: a number is claimed by one tenant, with its agent and webhook', async (t) => {
  t.equal((await api(srv.baseUrl, 'PUT', `/inbound-numbers/${LINE}`, { token: admin, body: { agent_id: 'nope' } })).status, 404, 'unknown agent');
  const put = await api(srv.baseUrl, 'PUT', `/inbound-numbers/${LINE}`, { token: admin, body: { webhook_url: hookUrl } });
  t.equal(put.status, 201);
  t.match(put.body, { number: LINE, agent_id: null, webhook_url: hookUrl });
  t.equal((await api(srv.baseUrl, 'PUT', `/inbound-numbers/${LINE}`, { token: admin, body: { webhook_url: hookUrl } })).status, 200, 'changed, not claimed');
  const other = await makeTenant(srv, 'other-inbound');
  t.equal((await api(srv.baseUrl, 'PUT', `/inbound-numbers/${LINE}`, { token: other.adminToken, body: {} })).status, 409, 'another tenant\'s number');
  t.equal((await api(srv.baseUrl, 'PUT', `/inbound-numbers/${LINE}`, { ...auth, body: {} })).status, 401, 'settings need an admin JWT');
  const list = await api(srv.baseUrl, 'GET', '/inbound-numbers', auth);
  t.match(list.body, { defaults: { agent_id: null }, numbers: [{ number: LINE }] });
  t.equal((await api(srv.baseUrl, 'POST', '/calls/inbound', { ...auth, body: { from: LEAD, to: '+14155550151' } })).status, 404, 'a number nobody routes');
  t.equal((await api(srv.baseUrl, 'POST', '/calls/inbound', { token: other.operatorToken, body: { from: LEAD, to: LINE } })).status, 404,
    'another tenant cannot ring this tenant\'s number');
});

t.test('the lead calls back: known, disclosed, recorded, streamed, reported inbound, counted', async (t) => {
  // the lead's first call (outbound), whose fields the call back will know
  const first = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: LEAD, agent_id: 'default', context: { customer_name: 'Lee' } } });
  t.equal(first.status, 201);
  const done = await waitForCallEnd(srv.baseUrl, first.body.id, auth.headers);
  t.equal(done.status, 'completed');
  const r = await api(srv.baseUrl, 'POST', '/calls/inbound', { ...auth, body: { from: LEAD, to: LINE } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.match(r.body, { id: /^call_[0-9a-f]{24}$/, direction: 'inbound', from: LEAD, to: LINE, status: 'ringing', webhook_url: hookUrl });
  const call = await waitForCallEnd(srv.baseUrl, r.body.id, auth.headers);
  t.equal(call.status, 'completed');
  t.same(call.transitions.map((x: { to: string }) => x.to), ['ringing', 'in_progress', 'completed']);
  t.match(call.context, { direction: 'inbound', caller_number: LEAD }, 'the call knows it came in');
  if (done.extracted_data?.customer_name) t.equal(call.context.customer_name, String(done.extracted_data.customer_name), 'the name from the last call');
  t.ok(Object.keys(call.context).some((k) => k.startsWith('last_')), 'the last call\'s fields');
  t.ok(call.disclosure_delivered_at, 'the same AI disclosure, delivered');
  t.ok(call.recording_url, 'recorded');
  const items = (await api(srv.baseUrl, 'GET', `/calls/${r.body.id}/events`, auth)).body.data as Array<{ type: string; speaker?: string; text?: string }>;
  t.ok(items.some((i) => i.type === 'transcript' && i.speaker === 'agent' && /automated assistant/i.test(i.text ?? '')), 'the disclosure in the live stream');
  const hook = await waitFor('the webhook', () => received.find((x) => x.body.includes(r.body.id)));
  t.match(JSON.parse(hook.body), { event: 'call.completed', call_id: r.body.id, direction: 'inbound', from: LEAD, to: LINE, status: 'completed' });
  const kpis = (await api(srv.baseUrl, 'GET', '/kpis', auth)).body;
  t.ok(kpis.inbound >= 1, `inbound calls counted (${kpis.inbound})`);
  t.ok(kpis.connected >= 2, 'and connected');
  const list = (await api(srv.baseUrl, 'GET', '/calls?limit=5', auth)).body.data as Array<{ id: string; direction: string }>;
  t.equal(list.find((c) => c.id === r.body.id)?.direction, 'inbound');
  t.equal(list.find((c) => c.id === first.body.id)?.direction, 'outbound');
});

t.test('no calling-hours gate: a call back at night is taken, while a dispatch to that number is not', async (t) => {
  const night = new Date('2026-11-24T21:00:00Z'); // 02:30 in India
  const calls = srv.services.calls;
  const clock = calls.clock;
  calls.clock = () => night;
  t.teardown(() => { calls.clock = clock; });
  const india = '+919812345678';
  const out = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: india } });
  t.equal(out.status, 422, 'outbound: outside calling hours');
  const r = await api(srv.baseUrl, 'POST', '/calls/inbound', { ...auth, body: { from: india, to: LINE } });
  t.equal(r.status, 201, 'inbound: taken');
  await api(srv.baseUrl, 'POST', `/calls/${r.body.id}/hangup`, auth);
  t.match(await waitForCallEnd(srv.baseUrl, r.body.id, auth.headers), { status: /completed|failed|canceled/ });
});

/**
 * What broke: POST /v1/calls/dispatch to a number on the tenant's do-not-disturb list dialed it; only leads and
 * campaigns were gated. Every outbound call now passes the DND/consent and calling-hours gates; a refusal says which
 * gate refused; an admin may mark a call transactional, and who did it, why and when is stored and audited.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { subjectHash } from '../../src/privacy/subject.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const admin = await login(srv.baseUrl);
const operatorKey = { headers: { 'x-api-key': API_KEY } };
// 11:30 in India (06:00 UTC): inside calling hours there; 01:00 in New York
const DAY_IN_INDIA = new Date('2026-11-24T06:00:00Z');
const NIGHT_IN_INDIA = new Date('2026-11-24T17:00:00Z'); // 22:30 IST
srv.services.calls.clock = () => DAY_IN_INDIA;
const dispatch = (to: string, extra: Record<string, unknown> = {}, auth: object = operatorKey) =>
  api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default', ...extra } });

t.test('a number on the DND list is refused with dnd_blocked, saying which gate', async (t) => {
  const n = '+919812340001';
  t.equal((await api(srv.baseUrl, 'POST', '/dnd/import', { ...operatorKey, body: { numbers: [n] } })).status, 200);
  const r = await dispatch(n);
  t.equal(r.status, 422);
  t.match(r.headers.get('content-type'), /application\/problem\+json/);
  t.match(r.body, { code: 'dnd_blocked', gate: 'dnd', detail: /do-not-disturb gate/ });
  const none = await srv.services.db.query('SELECT 1 FROM calls WHERE to_number = $1', [n]);
  t.equal(none.rows.length, 0, 'no call stored, none dialed');
  // a consent recorded before now lifts it (the same rule as leads and campaigns)
  await api(srv.baseUrl, 'POST', '/consents', { ...operatorKey, body: { phone: n, method: 'web_form', consented_at: '2026-11-01T00:00:00Z' } });
  t.equal((await dispatch(n)).status, 201, 'consented: dialed');
});

t.test('outside the callee\'s calling hours: outside_calling_hours with the next window', async (t) => {
  srv.services.calls.clock = () => NIGHT_IN_INDIA;
  t.teardown(() => { srv.services.calls.clock = () => DAY_IN_INDIA; });
  const r = await dispatch('+919812340002');
  t.equal(r.status, 422);
  t.match(r.body, { code: 'outside_calling_hours', gate: 'calling_hours', time_zones: ['Asia/Kolkata'], next_window_at: '2026-11-25T03:30:00.000Z' });
  t.equal((await dispatch('+15005550002')).status, 201, "the simulator's numbers reach no one: no calling hours");
  t.equal((await dispatch('+14155550123')).status, 201, 'nor do numbers reserved for fiction');
});

t.test('transactional: admins only, lifts both gates, stored on the call and audited', async (t) => {
  const n = '+919812340003';
  await api(srv.baseUrl, 'POST', '/dnd/import', { ...operatorKey, body: { numbers: [n] } });
  srv.services.calls.clock = () => NIGHT_IN_INDIA;
  t.teardown(() => { srv.services.calls.clock = () => DAY_IN_INDIA; });
  const mark = { transactional: { reason: 'OTP voice callback for order 4411' } };
  const byOperator = await dispatch(n, mark);
  t.equal(byOperator.status, 403);
  t.match(byOperator.body.detail, /admin role/);
  t.equal((await dispatch(n, { transactional: { reason: '' } }, { token: admin })).status, 400, 'a reason is required');
  const r = await dispatch(n, mark, { token: admin });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.match(r.body.compliance, { transactional: true, reason: mark.transactional.reason, marked_by: /^usr_/, marked_by_kind: 'user', gates_lifted: ['dnd', 'calling_hours'] });
  const read = await api(srv.baseUrl, 'GET', `/calls/${r.body.id}`, operatorKey);
  t.same(read.body.compliance, r.body.compliance, 'visible on the call');
  const ordinary = await api(srv.baseUrl, 'GET', '/calls?limit=200', operatorKey);
  t.equal(ordinary.body.data.find((c: { id: string }) => c.id !== r.body.id).compliance, null);
  const audit = await api(srv.baseUrl, 'GET', '/compliance/audit', { token: admin });
  t.equal(audit.status, 200);
  t.match(audit.body.data[0], { action: 'transactional_call', call_id: r.body.id, subject_hash: subjectHash(n), reason: mark.transactional.reason, actor: r.body.compliance.marked_by, actor_kind: 'user', gates_lifted: ['dnd', 'calling_hours'] });
  t.notOk(JSON.stringify(audit.body).includes(n), 'the audit holds the number only as its hash');
  t.equal((await api(srv.baseUrl, 'GET', '/compliance/audit', operatorKey)).status, 401, 'admin JWT only');
  // the proof outlives an erasure of the callee
  const erased = await api(srv.baseUrl, 'POST', '/privacy/erase', { token: admin, body: { e164: n } });
  t.equal(erased.status, 200);
  t.match(erased.body.retained.compliance_audit, { rows: 1, reason: /lawful/ });
  t.equal((await api(srv.baseUrl, 'GET', '/compliance/audit', { token: admin })).body.data[0].call_id, r.body.id);
});

t.test('the client library path is the same route: an inline agent to a DND number is refused too', async (t) => {
  const n = '+919812340004';
  await api(srv.baseUrl, 'POST', '/dnd/import', { ...operatorKey, body: { numbers: [n] } });
  const r = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...operatorKey, body: { to: n, agent: { role: 'r', voice: 'v', language: 'en-IN', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 700 } } });
  t.match(r.body, { code: 'dnd_blocked' });
});

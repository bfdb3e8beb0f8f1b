/**
 * Transcript retention with an injected clock: items older than the tenant's period go, younger ones and other
 * tenants' (with their own period) stay; the period is settable per tenant; expire accepts an admin JWT or the
 * service API key, refuses an operator JWT; the schedule runs and is cleared on close.
 */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { insertCall, insertConversation, insertEvent } from '../helpers/rows.js';
import { PrivacyService } from '../../src/privacy/service.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', PRIVACY_RETENTION_DEFAULT_DAYS: '30' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const admin = await login(srv.baseUrl);
const other = await makeTenant(srv, 'ret');
const NOW = new Date('2026-06-30T12:00:00Z');
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

async function seed(tenant: string) {
  const call = await insertCall(db, { tenant, to: '+919811111111', status: 'completed' });
  await insertEvent(db, tenant, call, 1, 'transcript', { text: 'old' }, daysAgo(40));
  await insertEvent(db, tenant, call, 2, 'transcript', { text: 'middle' }, daysAgo(10));
  await insertEvent(db, tenant, call, 3, 'transcript', { text: 'new' }, daysAgo(1));
  await insertEvent(db, tenant, call, 4, 'status', { status: 'completed' }, daysAgo(40));
  await insertConversation(db, tenant, call, [{ text: 'old msg', at: daysAgo(40) }, { text: 'new msg', at: daysAgo(1) }]);
  return call;
}
const c1 = await seed('ten_dev');
const c2 = await seed(other.tenantId);
const texts = async (call: string) => (await db.query<{ t: string }>(`SELECT payload->>'text' AS t FROM call_events WHERE call_id = $1 AND type = 'transcript' ORDER BY seq`, [call])).rows.map((r) => r.t);

t.test('retention setting: default, set, validation', async (t) => {
  t.same((await api(srv.baseUrl, 'GET', '/privacy/retention', { token: admin })).body, { days: 30 });
  t.equal((await api(srv.baseUrl, 'PUT', '/privacy/retention', { token: other.adminToken, body: { days: 7 } })).status, 200);
  t.equal((await api(srv.baseUrl, 'PUT', '/privacy/retention', { token: admin, body: { days: 0 } })).status, 400);
  t.equal((await api(srv.baseUrl, 'PUT', '/privacy/retention', { token: other.operatorToken, body: { days: 9 } })).status, 403);
  t.same((await api(srv.baseUrl, 'GET', '/privacy/retention', { token: other.adminToken })).body, { days: 7 });
});

t.test('expire with an injected clock applies each tenant period', async (t) => {
  const svc = new PrivacyService({ db, log: srv.services.log, defaultRetentionDays: 30, clock: () => NOW });
  const r = await svc.expire(undefined, 'test');
  t.same(await texts(c1), ['middle', 'new'], 'tenant 1 (30 days): the 40-day item went');
  t.same(await texts(c2), ['new'], 'tenant 2 (7 days): the 10- and 40-day items went');
  t.equal(r.deleted.call_events, 3);
  t.equal(r.deleted.conversation_messages, 2);
  const status = await db.query(`SELECT 1 FROM call_events WHERE call_id = $1 AND type = 'status'`, [c1]);
  t.equal(status.rows.length, 1, 'non-transcript items stay');
  const again = await svc.expire(undefined, 'test');
  t.equal(again.deleted.call_events, 0, 'idempotent');
});

t.test('POST /privacy/expire auth: admin JWT or API key, not operator JWT', async (t) => {
  const a = await api(srv.baseUrl, 'POST', '/privacy/expire', { token: admin });
  t.equal(a.status, 200);
  t.same(Object.keys(a.body.deleted).sort(), ['call_events', 'conversation_messages']);
  t.equal((await api(srv.baseUrl, 'POST', '/privacy/expire', { headers: { 'x-api-key': API_KEY } })).status, 200);
  t.equal((await api(srv.baseUrl, 'POST', '/privacy/expire', { token: API_KEY })).status, 200);
  const op = await api(srv.baseUrl, 'POST', '/privacy/expire', { token: other.operatorToken });
  t.equal(op.status, 403);
  t.equal(op.body.code, 'forbidden');
  t.equal((await api(srv.baseUrl, 'POST', '/privacy/expire', {})).status, 401);
});

t.test('the schedule runs retention and stops on close', async (t) => {
  let clockCalls = 0;
  const svc = new PrivacyService({ db, log: srv.services.log, defaultRetentionDays: 30, clock: () => { clockCalls++; return new Date(NOW.getTime() + 365 * 86_400_000); } });
  // the scheduled passes, so that stop() can wait for one in flight instead of guessing
  const passes: Promise<unknown>[] = [];
  const expire = svc.expire.bind(svc);
  svc.expire = (...args: Parameters<typeof expire>) => { const p = expire(...args); passes.push(p.catch(() => {})); return p; };
  // a call of its own: the API test above may already have expired c1 with the real clock
  const c3 = await seed('ten_dev');
  t.same(await texts(c3), ['old', 'middle', 'new']);
  svc.startSchedule(20);
  // wait for the committed result of a scheduled pass, with a generous deadline
  for (const until = Date.now() + 5_000; (await texts(c3)).length && Date.now() < until;) await new Promise((r) => setTimeout(r, 20));
  t.same(await texts(c3), [], 'a year later every transcript of tenant 1 is gone');
  svc.stop();
  await Promise.all(passes); // a pass already running finishes
  const n = clockCalls;
  await new Promise((r) => setTimeout(r, 100));
  t.equal(clockCalls, n, 'no run after stop()');
});

/**
 * POST /v1/leads end to end: disclosure conversation, dispatch, DND gate, consent, calling hours with a fixed
 * clock and the durable scheduler, duplicates, reads, auth and tenant isolation.
 */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { recordingCalls, setClock, userToken } from '../helpers/lead_fixtures.js';

const srv = await startTestServer({ env: { LEAD_SCHEDULER_TICK_MS: '0' } }); // the test drives the scheduler itself
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const operator = await userToken(srv, 'ten_dev', 'op1@example.com', 'operator');
const other = await userToken(srv, 'ten_other', 'admin@other.example', 'admin');
const calls = recordingCalls(srv);
const DAY = '2026-01-12T06:00:00Z'; // 11:30 IST
const NIGHT = '2026-01-12T17:00:00Z'; // 22:30 IST
setClock(srv, DAY);
const lead = (phone: string, extra: Record<string, string> = {}) => ({ name: 'Asha Rao', phone, source: 'web_form', domain: 'realestate', ...extra });

t.test('a lead opens a disclosure conversation and dials the number', async (t) => {
  const r = await api(b, 'POST', '/leads', { headers: { 'x-api-key': API_KEY }, body: lead('98123 45601') });
  t.equal(r.status, 201);
  t.equal(r.body.phone, '+919812345601', 'national number normalised with DEFAULT_PHONE_REGION=IN');
  t.equal(r.body.duplicate, false);
  t.equal(r.body.call.status, 'dispatched');
  t.match(r.body.call.id, /^call_[0-9a-f]{24}$/);
  const conv = await api(b, 'GET', `/conversations/${r.body.conversation_id}`, { token: admin });
  t.equal(conv.status, 200);
  t.equal(conv.body.lead_id, r.body.id);
  t.equal(conv.body.call_id, r.body.call.id);
  t.equal(conv.body.messages[0].role, 'agent');
  t.match(conv.body.messages[0].text, /AI/, 'first message is the agent disclosure');
  t.equal(conv.body.messages[0].meta.kind, 'disclosure');
  const d = calls.dispatched.at(-1)!;
  t.same(d, { tenantId: 'ten_dev', input: { to: '+919812345601', lead_id: r.body.id, conversation_id: r.body.conversation_id, context: { customer_name: 'Asha Rao' }, timezone: 'Asia/Kolkata' } });
  t.equal(r.body.timezone, 'Asia/Kolkata', "the callee's zone is recorded, from the number");
  // Dialed in the lead's own statement: the call is stored with the lead (already dialing: this instance's runner
  // dials it at once, migration 050), and no job is left to recover it.
  const stored = await srv.services.db.query(`SELECT status, lead_id, conversation_id, to_number FROM calls WHERE tenant_id = 'ten_dev' AND id = $1`, [r.body.call.id]);
  t.same(stored.rows, [{ status: 'dialing', lead_id: r.body.id, conversation_id: r.body.conversation_id, to_number: '+919812345601' }]);
  const jobs = await srv.services.db.query('SELECT id FROM lead_call_jobs WHERE lead_id = $1', [r.body.id]);
  t.equal(jobs.rows.length, 0, 'no call job for a lead dialed in its statement');
  const got = await api(b, 'GET', `/leads/${r.body.id}`, { token: operator });
  t.same(got.body.call, r.body.call);
});

t.test('through the real call engine: the call carries the lead and its conversation', { skip: !calls.real && 'call engine not wired' }, async (t) => {
  srv.services.leads.calls = calls.real;
  t.teardown(() => { srv.services.leads.calls = calls.recorder; });
  // the simulator's busy number: the call ends at once instead of running a conversation
  const r = await api(b, 'POST', '/leads', { token: operator, body: lead('+15005550002', { timezone: 'Asia/Kolkata' }) });
  t.equal(r.body.call.status, 'dispatched');
  const call = await api(b, 'GET', `/calls/${r.body.call.id}`, { token: operator });
  t.equal(call.status, 200);
  t.match(call.body, { to: '+15005550002', lead_id: r.body.id, conversation_id: r.body.conversation_id });
});

t.test('the disclosure is the tenant agent\'s script', async (t) => {
  const put = await api(b, 'PUT', '/agents/default', { token: admin, body: {
    name: 'Default', disclosure_script: 'Namaste! You are speaking with an AI assistant from Acme Homes.', qualify_script: [],
    role: 'qualifier', voice: 'alloy', language: 'en-IN', interruption_sensitivity: 0.5, turn_detection_timeout_ms: 700 } });
  t.equal(put.status, 200);
  const r = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345602') });
  const conv = await api(b, 'GET', `/conversations/${r.body.conversation_id}`, { token: operator });
  t.equal(conv.body.messages[0].text, 'Namaste! You are speaking with an AI assistant from Acme Homes.');
});

t.test('DND: a listed number is kept as a lead but not dialed; consent lets it through', async (t) => {
  const before = calls.dispatched.length;
  t.equal((await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919812345603'] } })).status, 200);
  const r = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345603') });
  t.equal(r.status, 201);
  t.same(r.body.call, { status: 'blocked', reason: 'dnd' });
  t.equal(calls.dispatched.length, before, 'not dialed');
  t.equal((await api(b, 'GET', `/leads/${r.body.id}`, { token: operator })).body.call.status, 'blocked', 'lead kept');
  const c = await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919812345603', method: 'web_form', consented_at: '2026-01-11T10:00:00Z', evidence: 'form #881' } });
  t.equal(c.status, 201);
  const again = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345603', { source: 'second' }) });
  t.equal(again.body.duplicate, true, 'same number within the window is a duplicate even after consent');
  await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919812345604'] } });
  await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919812345604', method: 'ivr', consented_at: '2026-01-11T10:00:00Z' } });
  const ok = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345604') });
  t.equal(ok.body.call.status, 'dispatched', 'consent lifts DND');
  await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919812345605'] } });
  await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919812345605', method: 'ivr', consented_at: '2026-01-13T10:00:00Z' } });
  t.same((await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345605') })).body.call, { status: 'blocked', reason: 'dnd' }, 'a consent dated after now does not count');
});

t.test('calling hours: scheduled for the next window, dialed by the scheduler when it opens', async (t) => {
  setClock(srv, NIGHT);
  await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919812345607'] } });
  await api(b, 'POST', '/consents', { token: operator, body: { phone: '+919812345607', method: 'ivr', consented_at: '2026-01-01T00:00:00Z' } });
  const night = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345606') });
  t.same(night.body.call, { status: 'scheduled', reason: 'calling_hours', scheduled_for: '2026-01-13T03:30:00.000Z' });
  const consented = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345607') });
  t.equal(consented.body.call.status, 'scheduled', 'consent does not lift calling hours');
  const tz = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345608', { timezone: 'Europe/London' }) });
  t.equal(tz.body.call.status, 'dispatched', 'explicit timezone: 17:00 in London is inside');
  const before = calls.dispatched.length;
  t.equal(await srv.services.leads.scheduler.tick(), 0, 'nothing due before the window');
  setClock(srv, '2026-01-13T03:31:00Z');
  await api(b, 'POST', '/dnd/import', { token: operator, body: { numbers: ['+919812345606'] } });
  t.equal(await srv.services.leads.scheduler.tick(), 2, 'both due jobs claimed');
  t.same((await api(b, 'GET', `/leads/${night.body.id}`, { token: operator })).body.call, { status: 'blocked', reason: 'dnd' }, 'gates re-checked at dial time');
  const dialed = await api(b, 'GET', `/leads/${consented.body.id}`, { token: operator });
  t.equal(dialed.body.call.status, 'dispatched');
  t.equal(calls.dispatched.length, before + 1);
  t.equal(await srv.services.leads.scheduler.tick(), 0, 'a job is dialed once');
  setClock(srv, DAY);
});

t.test('duplicates within the window return the existing lead with 200', async (t) => {
  const first = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345609') });
  const [a, c] = await Promise.all([
    api(b, 'POST', '/leads', { token: operator, body: lead('9812345609') }),
    api(b, 'POST', '/leads', { headers: { 'x-api-key': API_KEY }, body: lead('+91 98123 45609') }),
  ]);
  for (const r of [a, c]) { t.equal(r.status, 200); t.equal(r.body.duplicate, true); t.equal(r.body.id, first.body.id); }
  const otherTenant = await api(b, 'POST', '/leads', { token: other, body: lead('+919812345609') });
  t.equal(otherTenant.status, 201, 'another tenant\'s lead for the same number is not a duplicate');
});

t.test('simultaneous copies of a new number, mixed with other leads: one lead, one call', async (t) => {
  // Sent together they share group-commit batches (copies in one statement) and wait on each other across the
  // two batches in flight (the number's lock): either way exactly one is created.
  const before = calls.dispatched.length;
  const rs = await Promise.all(Array.from({ length: 16 }, (_, i) => i % 4 === 3
    ? api(b, 'POST', '/leads', { token: operator, body: lead(`+9198123470${String(i).padStart(2, '0')}`) })
    : api(b, 'POST', '/leads', { token: operator, body: lead(i % 2 ? '98123 46999' : '+919812346999') })));
  const copies = rs.filter((_, i) => i % 4 !== 3);
  const created = copies.filter((r) => r.status === 201);
  t.equal(created.length, 1, 'one copy created the lead');
  t.ok(copies.every((r) => r.body.id === created[0].body.id), 'the others answer with it');
  t.equal(copies.filter((r) => r.status === 200 && r.body.duplicate === true).length, copies.length - 1);
  t.ok(rs.filter((_, i) => i % 4 === 3).every((r) => r.status === 201 && r.body.duplicate === false), 'the other numbers are created');
  const dialed = calls.dispatched.slice(before).map((d) => d.input.to);
  t.equal(dialed.filter((to) => to === '+919812346999').length, 1, 'the number is dialed once');
  t.equal(dialed.length, 1 + 4);
});

t.test('validation and auth', async (t) => {
  t.equal((await api(b, 'POST', '/leads', { token: operator, body: lead('12') })).body.code, 'validation_failed');
  t.equal((await api(b, 'POST', '/leads', { token: operator, body: { ...lead('+919812345610'), extra: 1 } })).status, 400);
  t.equal((await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345610', { timezone: 'Mars/Olympus' }) })).status, 400);
  t.equal((await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345610', { agent_id: 'nope' }) })).status, 404);
  t.equal((await api(b, 'POST', '/leads', { body: lead('+919812345610') })).status, 401);
  t.equal((await api(b, 'POST', '/leads', { headers: { 'x-api-key': 'wrong-key-0123456789abc' }, body: lead('+919812345610') })).status, 401);
});

t.test('tenant isolation on reads', async (t) => {
  const mine = await api(b, 'POST', '/leads', { token: operator, body: lead('+919812345611') });
  t.equal((await api(b, 'GET', `/leads/${mine.body.id}`, { token: other })).status, 404);
  t.equal((await api(b, 'GET', `/conversations/${mine.body.conversation_id}`, { token: other })).status, 404);
  const list = await api(b, 'GET', '/leads?limit=200', { token: other });
  t.ok(list.body.data.every((l: { phone: string; id: string }) => l.id !== mine.body.id));
  const page1 = await api(b, 'GET', '/leads?limit=2', { token: operator });
  t.equal(page1.body.data.length, 2);
  const page2 = await api(b, 'GET', `/leads?limit=2&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { token: operator });
  t.notSame(page2.body.data.map((l: { id: string }) => l.id), page1.body.data.map((l: { id: string }) => l.id));
});

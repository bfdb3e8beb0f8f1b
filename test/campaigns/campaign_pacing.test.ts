/**
 * Dialer pacing with a stand-in call engine and an injected clock: never more than max_concurrency calls in
 * flight (also with two dialer instances racing on one database), every contact dialed once, retries after
 * busy / no_answer with backoff up to max_attempts, calling window in the campaign's time zone, DND block
 * and calling-hours scheduling from the gate.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { CampaignDialer } from '../../src/campaigns/dialer.js';
import type { CallGate } from '../../src/campaigns/ports.js';
import { FakeCalls } from './fake_calls.js';
import { TestClock, drive } from './drive.js';
import { leadsGate } from '../../src/campaigns/gate.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const token = await login(srv.baseUrl);
const phone = (i: number) => `+91980${String(i).padStart(7, '0')}`;
const allow: CallGate = async () => ({ action: 'allow' });

async function createCampaign(n: number, extra: Record<string, unknown> = {}, start = true) {
  const body = {
    name: 'pacing', agent_id: 'default', timezone: 'Asia/Kolkata', calling_window: { start: '09:00', end: '21:00' }, max_concurrency: 5,
    retry: { max_attempts: 2, backoff_minutes: 10, on: ['no_answer', 'busy'] },
    contacts: Array.from({ length: n }, (_, i) => ({ phone: phone(i), context: { customer_name: `C${i}` } })), ...extra,
  };
  const r = await api(srv.baseUrl, 'POST', '/campaigns', { token, body });
  if (r.status !== 201) throw new Error(`create ${r.status} ${JSON.stringify(r.body)}`);
  if (start) await api(srv.baseUrl, 'POST', `/campaigns/${r.body.id}/start`, { token });
  return r.body.id as string;
}
const progress = async (id: string) => (await api(srv.baseUrl, 'GET', `/campaigns/${id}`, { token })).body;
const isDone = (id: string) => async () => (await progress(id)).state === 'completed';
const dialer = (fake: FakeCalls, clock: TestClock, gate = allow, instanceId?: string) =>
  new CampaignDialer({ db, log: srv.services.log, calls: fake, gate, clock: clock.read, tickMs: 0, leaseSeconds: 60, instanceId });
// 12:00 in Kolkata = 06:30 UTC
const noonIST = () => new TestClock(new Date('2026-03-02T06:30:00Z'));

t.test('paced at max_concurrency; retries after busy and no_answer; every contact dialed the right number of times', async (t) => {
  const id = await createCampaign(60);
  // i % 10 == 0: busy then answered; i % 10 == 1: never answers; others answer at once
  const fake = new FakeCalls(db, 'ten_dev', (p, attempt) => {
    const i = Number(p.slice(-7)) % 10;
    if (i === 0) return { status: attempt === 1 ? 'busy' : 'completed' };
    if (i === 1) return { status: 'no_answer' };
    return { status: 'completed' };
  });
  const clock = noonIST();
  await drive([dialer(fake, clock)], fake, clock, isDone(id));
  t.ok(fake.maxInFlight <= 5, `max in flight ${fake.maxInFlight} <= 5`);
  t.equal(fake.maxInFlight, 5, 'and it does use the concurrency');
  t.equal(fake.dispatched.length, 60 + 6 + 6, 'one dial per contact plus one retry for 12 busy/no-answer contacts');
  for (let i = 0; i < 60; i++) t.equal(fake.count(phone(i)), i % 10 <= 1 ? 2 : 1, `contact ${i}`);
  const p = await progress(id);
  t.match(p.progress, { total: 60, done: 54, failed: 6, pending: 0, dialing: 0, retry: 0, attempts: 72 });
  t.equal(p.state, 'completed');
});

t.test('two dialer instances on one database: still paced, nobody dialed twice', async (t) => {
  const id = await createCampaign(40, { max_concurrency: 3, retry: { max_attempts: 1, backoff_minutes: 1, on: [] } });
  const fake = new FakeCalls(db, 'ten_dev');
  const clock = noonIST();
  await drive([dialer(fake, clock, allow, 'a'), dialer(fake, clock, allow, 'b')], fake, clock, isDone(id));
  t.ok(fake.maxInFlight <= 3, `max in flight ${fake.maxInFlight} <= 3`);
  t.equal(fake.dispatched.length, 40);
  t.equal(new Set(fake.dispatched).size, 40, 'every contact once');
});

t.test('calling window in the campaign time zone', async (t) => {
  const id = await createCampaign(3, { calling_window: { start: '09:00', end: '21:00' } });
  const fake = new FakeCalls(db, 'ten_dev');
  const clock = new TestClock(new Date('2026-03-02T16:00:00Z')); // 21:30 in Kolkata: closed
  const d = dialer(fake, clock);
  await d.kick();
  t.equal(fake.dispatched.length, 0, 'nothing dialed outside the window');
  clock.now = new Date('2026-03-03T03:29:00Z'); // 08:59 IST
  await d.kick();
  t.equal(fake.dispatched.length, 0, 'not a minute early');
  clock.now = new Date('2026-03-03T03:30:00Z'); // 09:00 IST
  await drive([d], fake, clock, isDone(id));
  t.equal(fake.dispatched.length, 3);
});

t.test('gate: DND blocks, calling hours schedule; no attempt is spent', async (t) => {
  const id = await createCampaign(3);
  const fake = new FakeCalls(db, 'ten_dev');
  const clock = noonIST();
  const later = new Date(clock.now.getTime() + 60 * 60_000);
  const gate: CallGate = async (_t, e164, now) => {
    if (e164 === phone(0)) return { action: 'block', reason: 'dnd' };
    if (e164 === phone(1) && now < later) return { action: 'schedule', at: later, reason: 'calling_hours' };
    return { action: 'allow' };
  };
  const d = dialer(fake, clock, gate);
  await d.kick(); await fake.settle(); await d.kick();
  t.same(fake.dispatched, [phone(2)], 'only the free contact is dialed');
  let p = await progress(id);
  t.match(p.progress, { blocked: 1, retry: 1, done: 1, attempts: 1 });
  await drive([d], fake, clock, isDone(id), { stepMinutes: 61 });
  t.equal(fake.count(phone(0)), 0, 'the DND contact is never dialed');
  t.equal(fake.count(phone(1)), 1, 'the scheduled contact is dialed once its time comes');
  p = await progress(id);
  t.match(p.progress, { blocked: 1, done: 2, attempts: 2 });
});

t.test('pause stops new dials, resume continues, cancel drops the rest', async (t) => {
  const id = await createCampaign(10, { max_concurrency: 2 });
  // calls hang until the test ends them, so nothing moves behind the test's back
  const fake = new FakeCalls(db, 'ten_dev', () => ({ status: 'completed', hang: true }));
  const clock = noonIST();
  const d = dialer(fake, clock);
  const endAll = async () => { for (const c of fake.hanging.splice(0)) await fake.end(c, 'completed', id); await d.kick(); };
  await d.kick();
  t.equal(fake.dispatched.length, 2, 'two in flight');
  await d.kick();
  t.equal(fake.dispatched.length, 2, 'full: no third call');
  t.equal((await api(srv.baseUrl, 'POST', `/campaigns/${id}/pause`, { token })).status, 200);
  await endAll();
  t.equal(fake.dispatched.length, 2, 'paused: nothing new after the calls ended');
  t.match((await progress(id)).progress, { done: 2, dialing: 0 });
  t.equal((await api(srv.baseUrl, 'POST', `/campaigns/${id}/resume`, { token })).status, 200);
  await d.kick();
  t.equal(fake.dispatched.length, 4, 'resumed');
  const c = await api(srv.baseUrl, 'POST', `/campaigns/${id}/cancel`, { token });
  t.equal(c.body.state, 'canceled');
  await endAll();
  t.equal(fake.dispatched.length, 4, 'canceled: nothing new');
  t.match((await progress(id)).progress, { done: 4, canceled: 6, dialing: 0 });
});

t.test('the real gate (business A): DND without consent blocks, consent lets through, TRAI hours schedule', async (t) => {
  const id = await createCampaign(3, { calling_window: { start: '00:00', end: '23:59' } });
  await db.query(`INSERT INTO dnd_numbers (tenant_id, e164) VALUES ('ten_dev', $1), ('ten_dev', $2)`, [phone(0), phone(1)]);
  await db.query(`INSERT INTO consents (id, tenant_id, e164, method, consented_at, recorded_by) VALUES ('cons_t1', 'ten_dev', $1, 'web_form', '2026-01-01T00:00:00Z', 't')`, [phone(1)]);
  const fake = new FakeCalls(db, 'ten_dev');
  const clock = new TestClock(new Date('2026-03-02T17:00:00Z')); // 22:30 in India: outside TRAI hours
  const d = dialer(fake, clock, leadsGate(db));
  await d.kick(); await fake.settle(); await d.kick();
  t.equal(fake.dispatched.length, 0, 'nothing dialed at night');
  t.match((await progress(id)).progress, { blocked: 1, retry: 2, attempts: 0 }, 'DND blocked at once; the others wait for 09:00 IST');
  await drive([d], fake, clock, isDone(id), { stepMinutes: 60 });
  t.same(fake.dispatched.sort(), [phone(1), phone(2)], 'consented DND number and free number dialed once each');
  t.ok(clock.now >= new Date('2026-03-03T03:30:00Z'), 'not before 09:00 IST');
});

/**
 * Restart: a campaign is half-dialed by instance 1, which stops (service closed) with calls in flight; some end
 * while it is down. Instance 2 starts on the same database and finishes the campaign: it learns the outcomes
 * from the calls table, never exceeds max_concurrency counting the calls still in flight, and dials nobody twice.
 * Also: a claim whose instance died before linking its call is linked to that call (not redialed), and a
 * claim that never produced a call is released and dialed once.
 */
import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, api, login } from '../helpers/server.js';
import { CampaignDialer } from '../../src/campaigns/dialer.js';
import type { RunningServer } from '../../src/server.js';
import { FakeCalls } from './fake_calls.js';
import { TestClock, drive } from './drive.js';
import { insertCall } from '../helpers/rows.js';

const dataDir = process.env.DATABASE_URL ? 'memory' : await mkdtemp(join(tmpdir(), 'cmp-restart-'));
const env = { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0', DATA_DIR: dataDir };
const phone = (i: number) => `+91970${String(i).padStart(7, '0')}`;
const clock = new TestClock(new Date('2026-03-02T06:30:00Z'));
const dialerOn = (srv: RunningServer, fake: FakeCalls, id: string, leaseSeconds = 60) =>
  new CampaignDialer({ db: srv.services.db, log: srv.services.log, calls: fake, gate: async () => ({ action: 'allow' }), clock: clock.read, tickMs: 0, leaseSeconds, instanceId: id });

async function createStarted(srv: RunningServer, n: number, maxConcurrency: number) {
  const token = await login(srv.baseUrl);
  const r = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: {
    name: 'restart', agent_id: 'default', timezone: 'UTC', calling_window: { start: '00:00', end: '23:59' }, max_concurrency: maxConcurrency,
    contacts: Array.from({ length: n }, (_, i) => ({ phone: phone(i) })) } });
  await api(srv.baseUrl, 'POST', `/campaigns/${r.body.id}/start`, { token });
  return r.body.id as string;
}

t.test('a second instance continues after a stop without double dialing', async (t) => {
  const srv1 = await startTestServer({ env });
  const id = await createStarted(srv1, 20, 4);
  let hang = true;
  const fake = new FakeCalls(srv1.services.db, 'ten_dev', () => ({ status: 'completed', hang }));
  const d1 = dialerOn(srv1, fake, 'one');
  await d1.kick();
  t.equal(fake.dispatched.length, 4, 'instance 1 dialed up to the concurrency');
  await d1.stop();
  await srv1.close();

  const srv2 = await startTestServer({ env, databaseUrl: srv1.databaseUrl });
  t.teardown(() => srv2.close());
  fake.db = srv2.services.db;
  const [a, b, c, d] = fake.hanging.splice(0);
  // two calls ended while no dialer ran (on the call engine's side): only the calls table knows
  await fake.end(a, 'completed', id, false);
  await fake.end(b, 'completed', id, false);
  const d2 = dialerOn(srv2, fake, 'two');
  await d2.kick();
  t.equal(fake.dispatched.length, 6, 'two slots freed by the ended calls, two still in flight');
  hang = false;
  for (const x of fake.hanging.splice(0)) await fake.end(x, 'completed', id, false);
  t.ok(fake.maxInFlight <= 4, `max in flight ${fake.maxInFlight} <= 4`);
  await fake.end(c, 'completed', id, false);
  await fake.end(d, 'busy', id, false);
  const token = await login(srv2.baseUrl);
  await drive([d2], fake, clock, async () => (await api(srv2.baseUrl, 'GET', `/campaigns/${id}`, { token })).body.state === 'completed');
  t.ok(fake.maxInFlight <= 4, `max in flight ${fake.maxInFlight} <= 4`);
  t.equal(fake.dispatched.length, 20, 'twenty dials in all');
  t.equal(new Set(fake.dispatched).size, 20, 'each contact once');
  const p = (await api(srv2.baseUrl, 'GET', `/campaigns/${id}`, { token })).body.progress;
  t.match(p, { done: 19, failed: 1, attempts: 20 }, 'busy with max_attempts 1 is a failure');
  await d2.stop();
});

t.test('claims of a dead instance: linked to the call it made, or released and dialed once', async (t) => {
  const srv = await startTestServer({ env: { ...env, DATA_DIR: 'memory' } });
  t.teardown(() => srv.close());
  const db = srv.services.db;
  const id = await createStarted(srv, 3, 3);
  // instance "dead" claimed contacts 0 and 1 ten minutes ago; it had dispatched contact 0's call (completed since)
  await db.query(`UPDATE campaign_contacts SET state = 'dialing', attempts = 1, claimed_by = 'dead', claimed_at = now() - interval '10 minutes'
    WHERE campaign_id = $1 AND phone = ANY($2::text[])`, [id, [phone(0), phone(1)]]);
  const made = await insertCall(db, { tenant: 'ten_dev', to: phone(0), status: 'completed', campaign_id: id });
  const fake = new FakeCalls(db, 'ten_dev');
  const d = dialerOn(srv, fake, 'alive');
  const token = await login(srv.baseUrl);
  await drive([d], fake, clock, async () => (await api(srv.baseUrl, 'GET', `/campaigns/${id}`, { token })).body.state === 'completed');
  t.equal(fake.count(phone(0)), 0, 'contact 0 not redialed: its call was found');
  t.equal(fake.count(phone(1)), 1, 'contact 1 released after the lease and dialed once');
  t.equal(fake.count(phone(2)), 1);
  const c0 = await db.query<{ call_id: string; state: string; attempts: number }>('SELECT call_id, state, attempts FROM campaign_contacts WHERE campaign_id = $1 AND phone = $2', [id, phone(0)]);
  t.same(c0.rows[0], { call_id: made, state: 'done', attempts: 1 });
  await d.stop();
});

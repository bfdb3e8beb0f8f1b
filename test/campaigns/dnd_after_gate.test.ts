/**
 * A number put on the do-not-disturb list after a dialer's gate let it through is still not called: campaigns and
 * the lead scheduler gate first (to reschedule rather than refuse outside calling hours), and the statement that
 * stores the call checks do-not-disturb again at the dialer's instant.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { CampaignDialer } from '../../src/campaigns/dialer.js';
import type { CallGate } from '../../src/campaigns/ports.js';
import { ApiError } from '../../src/errors.js';

const srv = await startTestServer({ env: { CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
const db = srv.services.db;
const token = await login(srv.baseUrl);
const key = { 'x-api-key': API_KEY };
const listDnd = async (n: string) => {
  const r = await api(srv.baseUrl, 'POST', '/dnd/import', { headers: key, body: { numbers: [n] } });
  if (r.status !== 200) throw new Error(`dnd import ${r.status}`);
};
const callsTo = async (n: string) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM calls WHERE to_number = $1', [n])).rows[0].n;

t.test('the engine: a dispatch with a do-not-disturb recheck is refused for a listed number', async (t) => {
  await listDnd('+919810000001');
  const err = await srv.services.calls.dispatch('ten_dev', { to: '+919810000001', agent_id: 'default' }, { dndAt: new Date() }).catch((e) => e);
  t.ok(err instanceof ApiError && err.code === 'dnd_blocked', `refused (${err?.code})`);
  t.equal(await callsTo('+919810000001'), 0, 'no call stored');
  const unlisted = await srv.services.calls.dispatch('ten_dev', { to: '+919810000002', agent_id: 'default' }, { dndAt: new Date() });
  t.equal(unlisted.to, '+919810000002', 'an unlisted number is dispatched');
});

t.test('a campaign contact listed after the gate passed it is blocked, not called', async (t) => {
  const contacts = [{ phone: '+919810000011' }, { phone: '+919810000012' }];
  const c = await api(srv.baseUrl, 'POST', '/campaigns', { token, body: {
    name: 'dnd after gate', agent_id: 'default', timezone: 'UTC', calling_window: { start: '00:00', end: '23:59' }, max_concurrency: 2, contacts } });
  t.equal(c.status, 201);
  t.equal((await api(srv.baseUrl, 'POST', `/campaigns/${c.body.id}/start`, { token })).status, 200);
  // the gate ran while the number was not yet listed; the entry lands before the call is stored
  const gatedEarlier: CallGate = async (_tenant, e164) => { if (e164 === '+919810000011') await listDnd(e164); return { action: 'allow' }; };
  const dialer = new CampaignDialer({ db, log: srv.services.log, calls: srv.services.calls, gate: gatedEarlier, tickMs: 0, leaseSeconds: 60, instanceId: 'dnd-test' });
  t.teardown(() => dialer.stop());
  await dialer.kick();
  t.equal(await callsTo('+919810000011'), 0, 'the listed number was not called');
  t.equal(await callsTo('+919810000012'), 1, 'the other contact was');
  const k = await db.query<{ state: string; last_outcome: string; attempts: number }>(
    'SELECT state, last_outcome, attempts FROM campaign_contacts WHERE campaign_id = $1 AND phone = $2', [c.body.id, '+919810000011']);
  t.same(k.rows[0], { state: 'blocked', last_outcome: 'dnd:dnd', attempts: 0 }, 'blocked like a contact the gate refused, no attempt counted');
});

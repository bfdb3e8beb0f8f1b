/**
 * Calls of a dead engine instance (src/calls/instances.ts): once its liveness row is older than the lease, another
 * engine ends its live calls as failed/instance_lost the usual way (transition, status item, webhook, campaign),
 * leaves ended calls and live instances alone, and forgets the dead instance. The running engine keeps its row.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { EngineInstances } from '../../src/calls/instances.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const db = srv.services.db;
const engine = srv.services.callEngine;
const lease = srv.config.CALL_INSTANCE_LEASE_SECONDS;
const ids = (n: number) => `call_${'ab'.repeat(11)}${String(n).padStart(2, '0')}`;

async function storeCall(id: string, status: string, instanceId: string, webhookUrl: string | null = null, campaignId: string | null = null): Promise<void> {
  await db.query(
    `INSERT INTO calls (id, tenant_id, agent, to_number, language, status, instance_id, webhook_url, campaign_id)
     VALUES ($1, 'ten_dev', '{"role":"qualifier","voice":"alloy","language":"en-IN","interruption_sensitivity":0.5,"turn_detection_timeout_ms":700}',
       '+919812345678', 'en-IN', $2, $3, $4, $5)`, [id, status, instanceId, webhookUrl, campaignId]);
}

t.test('the running engine registers itself and renews its row', async (t) => {
  let own = await db.query<{ id: string }>('SELECT id FROM engine_instances');
  for (let i = 0; i < 100 && !own.rows.length; i++) { // registration runs in the background of start-up
    await new Promise((r) => setTimeout(r, 20));
    own = await db.query<{ id: string }>('SELECT id FROM engine_instances');
  }
  t.equal(own.rows.length, 1);
  t.match(own.rows[0].id, /^[^:]+:\d+:[0-9a-f]{6}$/, 'host:pid:random, so a restarted process is a new instance');
});

t.test("a dead instance's live calls end as failed/instance_lost; ended calls and live instances are left alone", async (t) => {
  await db.query(`INSERT INTO engine_instances (id, seen_at) VALUES ('host:1:dead00', now() - make_interval(secs => $1 + 5)),
    ('host:2:alive0', now())`, [lease]);
  await storeCall(ids(1), 'queued', 'host:1:dead00');
  await storeCall(ids(2), 'in_progress', 'host:1:dead00', 'http://127.0.0.1:9/hook'); // loopback: tests never send elsewhere
  await storeCall(ids(3), 'completed', 'host:1:dead00');
  await storeCall(ids(4), 'dialing', 'host:2:alive0');
  // a campaign contact whose call the dead instance was driving
  await db.query(`INSERT INTO campaigns (id, tenant_id, name, agent_id, state, window_start, window_end, timezone, max_concurrency, retry, created_by)
    VALUES ('cmp_lost', 'ten_dev', 'c', 'default', 'running', '00:00', '23:59', 'UTC', 1, '{"max_attempts":1,"backoff_minutes":1,"on":["no_answer","busy"]}', 't')`);
  await storeCall(ids(5), 'ringing', 'host:1:dead00', null, 'cmp_lost');
  await db.query(`INSERT INTO campaign_contacts (id, campaign_id, tenant_id, phone, state, attempts, call_id)
    VALUES ('cc_lost', 'cmp_lost', 'ten_dev', '+919812345678', 'dialing', 1, $1)`, [ids(5)]);
  const ended = await engine.instances.sweep();
  t.equal(ended, 3);
  const rows = await db.query<{ id: string; status: string; ended_reason: string | null }>(
    `SELECT id, status, ended_reason FROM calls WHERE id = ANY($1) ORDER BY id`, [[1, 2, 3, 4].map(ids)]);
  t.same(rows.rows.map((r) => [r.status, r.ended_reason]), [['failed', 'instance_lost'], ['failed', 'instance_lost'], ['completed', null], ['dialing', null]]);
  const moves = await db.query<{ call_id: string; from_status: string; to_status: string }>(
    `SELECT call_id, from_status, to_status FROM call_lifecycle WHERE call_id = ANY($1) ORDER BY call_id`, [[ids(1), ids(2)]]);
  t.same(moves.rows.map((m) => [m.from_status, m.to_status]), [['queued', 'failed'], ['in_progress', 'failed']], 'transitions');
  const items = await db.query<{ payload: { status: string; ended_reason: string } }>(
    `SELECT payload FROM call_events WHERE call_id = $1 AND type = 'status'`, [ids(2)]);
  t.same(items.rows.map((i) => i.payload), [{ status: 'failed', ended_reason: 'instance_lost' }], 'status item for live listeners');
  const hooks = await db.query<{ event_type: string }>(`SELECT event_type FROM webhook_outbox WHERE call_id = $1`, [ids(2)]);
  t.same(hooks.rows.map((h) => h.event_type), ['call.completed'], 'its webhook is queued');
  const left = await db.query<{ id: string }>('SELECT id FROM engine_instances ORDER BY id');
  t.notOk(left.rows.some((r) => r.id === 'host:1:dead00'), 'the dead instance is forgotten');
  t.ok(left.rows.some((r) => r.id === 'host:2:alive0'), 'a live one is kept');
  t.equal(await engine.instances.sweep(), 0, 'nothing left to end');
  let contact: { state: string; last_outcome: string | null } | undefined;
  for (let i = 0; i < 100; i++) { // the campaign listener runs after the call's end is announced
    contact = (await db.query<{ state: string; last_outcome: string | null }>(`SELECT state, last_outcome FROM campaign_contacts WHERE id = 'cc_lost'`)).rows[0];
    if (contact.state !== 'dialing') break;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.same(contact, { state: 'failed', last_outcome: 'failed' }, 'its campaign contact is settled');
});

t.test('an engine that closes removes its row', async (t) => {
  const other = new EngineInstances({ db, log: srv.services.log, instanceId: 'host:3:closed', leaseSeconds: lease, runner: { endLost: async () => {} } });
  await other.start();
  const has = async () => (await db.query(`SELECT 1 FROM engine_instances WHERE id = 'host:3:closed'`)).rows.length;
  t.equal(await has(), 1);
  await other.close();
  t.equal(await has(), 0);
});

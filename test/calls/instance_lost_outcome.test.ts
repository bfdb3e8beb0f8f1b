/**
 * A call ended as instance_lost reported the time until another instance noticed (94 s for a call answered 27 s
 * before the crash), and its webhook carried zero-filled metrics where the API said null. Now its duration runs
 * to the call's last known activity, and the webhook is built from the same record the API answers with.
 */
import t from 'tap';
import { API_KEY, api, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const db = srv.services.db;
const lease = srv.config.CALL_INSTANCE_LEASE_SECONDS;
const answered = `call_${'ad'.repeat(12)}`;
const ringing = `call_${'ae'.repeat(12)}`;

t.test('duration to the last activity, and the webhook says what the API says', async (t) => {
  await db.query(`INSERT INTO engine_instances (id, seen_at) VALUES ('host:9:gone00', now() - make_interval(secs => $1 + 30))`, [lease]);
  // answered 120 s ago; its last live item 27 s after the answer; then its instance died
  for (const [id, status] of [[answered, 'in_progress'], [ringing, 'ringing']]) {
    await db.query(
      `INSERT INTO calls (id, tenant_id, agent, to_number, language, status, instance_id, webhook_url, answered_at, created_at, updated_at)
       VALUES ($1, $2, '{}', '+919812345678', 'en-IN', $3, 'host:9:gone00', 'http://127.0.0.1:9/hook',
         CASE WHEN $3 = 'in_progress' THEN now() - interval '120 seconds' END, now() - interval '130 seconds', now() - interval '120 seconds')`,
      [id, DEV_TENANT_ID, status]);
  }
  await srv.services.stream.store.append(DEV_TENANT_ID, answered, { type: 'transcript', speaker: 'caller', text: 'yes, tomorrow', latencyMs: 0, partial: false });
  await db.query(`UPDATE call_events SET at = now() - interval '93 seconds' WHERE call_id = $1`, [answered]);

  t.equal(await srv.services.callEngine.instances.sweep(), 2);
  for (const [id, duration] of [[answered, 27], [ringing, null]] as const) {
    const call = (await api(srv.baseUrl, 'GET', `/calls/${id}`, { headers: { 'x-api-key': API_KEY } })).body;
    t.match(call, { status: 'failed', ended_reason: 'instance_lost' });
    t.equal(call.duration_seconds, duration, `${id}: duration ${duration}`);
    t.equal(call.metrics, null, 'no session ran here: the API says null');
    const hook = (await db.query<{ payload: Record<string, unknown> }>(`SELECT payload FROM webhook_outbox WHERE call_id = $1`, [id])).rows[0].payload;
    t.equal(hook.duration_seconds, call.duration_seconds, 'the webhook duration is the API\'s');
    t.equal(hook.metrics, null, 'the webhook metrics are the API\'s: null, not zeros');
    t.match(hook, { call_id: id, status: 'failed', ended_reason: 'instance_lost' });
  }
});

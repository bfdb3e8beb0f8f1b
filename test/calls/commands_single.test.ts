/**
 * The embedded default (one instance, in-process bus; or one instance on PostgreSQL/Redis when set): hang-up,
 * transfer and erasure of a live call behave as before the command channel: the call stops, one call.completed.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { commandFlows } from './call_commands_flows.js';

// SIM_TIME_SCALE 0.1: the simulated callee talks ten times slower, so every call is still live when the command comes
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '0.1', CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' } });
t.teardown(() => srv.close());
commandFlows(t, srv, srv);

t.test('storage refuses a second call.completed for a call (unique index, migration 065)', async (t) => {
  const db = srv.services.db;
  const id = `call_${'ef'.repeat(12)}`;
  await db.query(`INSERT INTO calls (id, tenant_id, agent, to_number, language, status) VALUES ($1, 'ten_dev', '{}', '+14155550101', 'en-US', 'completed')`, [id]);
  const enqueue = () => srv.services.callEngine.outbox.enqueue(db, { tenantId: 'ten_dev', callId: id, url: 'http://127.0.0.1:9/h', eventType: 'call.completed', payload: { call_id: id } });
  await enqueue();
  await t.rejects(enqueue(), 'the second one fails');
  await srv.services.callEngine.outbox.enqueue(db, { tenantId: 'ten_dev', callId: id, url: 'http://127.0.0.1:9/h', eventType: 'call.other', payload: {} });
  t.pass('other event types are not limited');
});

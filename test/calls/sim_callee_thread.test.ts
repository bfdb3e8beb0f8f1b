/**
 * Simulated callees on their own thread (SIM_CALLEE_THREAD=true, what the load benches use): the call is the
 * same as with in-process callees — answered over the media WebSocket, qualified, completed.
 */
import t from 'tap';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', SIM_CALLEE_THREAD: 'true' } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };

t.test('a cooperative call completes with its callee on another thread', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default' } });
  t.equal(d.status, 201);
  let call;
  for (let i = 0; i < 600; i++) {
    call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).body;
    if (!['queued', 'dialing', 'ringing', 'in_progress'].includes(call.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.equal(call.status, 'completed');
  t.equal(call.ended_reason, 'completed');
  t.ok(call.metrics.turn_count >= 3, `turns measured (${call.metrics.turn_count})`);
  t.ok(call.extracted_data.customer_name, 'name extracted from the callee thread\'s speech');
});

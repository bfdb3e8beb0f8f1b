/**
 * Issue 33: "stop calling" on a live call. The dialog ends the call opted_out; the platform itself honours it: the
 * number goes on the tenant's DND list (source spoken_opt_out, with its time), the call ends opted_out, and the
 * next dispatch to that number is refused. The dialog here is the scripted engine behind gRPC, fed the caller's
 * opt-out on its first answer (the simulated callee has no such persona).
 */
import t from 'tap';
import { createSimAdapters, simCallees, startAdapterServer, type AdapterSet } from '../../src/adapters/index.js';
import { createLocalTools } from '../../src/tools/index.js';
import { API_KEY, api, startTestServer } from '../helpers/server.js';

const callees = simCallees({ timeScale: 10, thread: false });
const sim = createSimAdapters({ simCarrier: { ringMs: 0, callees, timeScale: 10 } });
const adapters: AdapterSet = {
  ...sim,
  // whatever the callee answers first, the dialog hears "please stop calling me"
  dialog: { turn: (r, o) => sim.dialog.turn(r.callerText ? { ...r, callerText: 'Please stop calling me.' } : r, o) },
};
const adapterServer = await startAdapterServer({ ...adapters, tools: createLocalTools() }, '127.0.0.1:0');
t.teardown(() => adapterServer.close());
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', ADAPTER_DIALOG_URL: adapterServer.address } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };

t.test('the call ends opted_out, the number is on DND, the next dispatch is refused', async (t) => {
  const to = '+14155550177';
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default' } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  let call;
  for (let i = 0; i < 900; i++) {
    call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).body;
    if (!['queued', 'dialing', 'ringing', 'in_progress'].includes(call.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(call, { status: 'completed', ended_reason: 'opted_out' });
  t.match(call.summary, /do-not-disturb/);
  const dnd = await srv.services.db.query<{ source: string; created_at: Date }>('SELECT source, created_at FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2', ['ten_dev', to]);
  t.equal(dnd.rows[0]?.source, 'spoken_opt_out', 'on the list, with how');
  t.ok(dnd.rows[0]?.created_at, 'and when');
  const again = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default' } });
  t.equal(again.status, 422);
  t.match(again.body, { code: 'dnd_blocked' });
});

/**
 * Simulator mode end to end over the real media WebSocket, in real speech (the embedded default): each magic
 * number's outcome (see e2e_sim.test.ts for the cooperative call and barge-in).
 */
import t from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';

// recognition is CPU work measured in wall time: on a test machine running other suites a turn's deadline is wider
const srv = await startTestServer({ env: { SIM_SPEECH: 'offline', SIM_TIME_SCALE: '10', ADAPTER_TIMEOUT_MS: '8000' } });
t.teardown(() => srv.close());
// real speech is CPU work per turn: more than the default 120 s per file on a machine running other suites
t.setTimeout(300_000);
const auth = { headers: { 'x-api-key': API_KEY } };

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers);

const outcomes: Array<[string, string, string | RegExp]> = [
  ['+15005550001', 'no_answer', 'no_answer'],
  ['+15005550002', 'busy', 'busy'],
  ['+15005550003', 'failed', 'carrier_failed'],
  ['+15005550004', 'completed', 'voicemail'],
  ['+15005550005', 'completed', /caller_hangup|media_closed/],
  // waits on hold for an operator (the tenant's default 60 s), nobody takes it: the call-back offer
  ['+15005550007', 'completed', 'escalation_unanswered'],
  // issue 33: a silent callee is asked once whether they are still there, then the call ends (it used to escalate)
  ['+15005550008', 'completed', 'no_response'],
];
for (const [to, status, reason] of outcomes) {
  t.test(`magic number ${to} -> ${status}`, async (t) => {
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default' } });
    t.equal(d.status, 201);
    const call = await waitEnded(d.body.id);
    t.equal(call.status, status);
    t.match(call.ended_reason, reason);
    if (to === '+15005550007') t.equal(call.human_escalation, true);
    if (to === '+15005550008') t.equal(call.human_escalation, false, 'nobody to hand a silent line to');
  });
}

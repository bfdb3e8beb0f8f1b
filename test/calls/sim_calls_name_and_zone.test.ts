/**
 * What broke, in ordinary simulated calls: the callee's "Okay." while the agent asked for a name became
 * customer_name "Okay" and the agent said "Thank you, Okay" (6 of 11 calls); an Indian callee's "next Tuesday at
 * 3 pm" became 15:00+00:00 (20:30 in India). Cooperative calls to Indian numbers now keep the callee's real name and
 * read slots in India's zone; the budget is in its normal form.
 */
import t from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { SimulatedCallee } from '../../src/adapters/index.js';
import { isBackchannel } from '../../src/session/utterance.js';
import { findBudget, formatAmount } from '../../src/dialog/amounts.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10' } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers, { timeoutMs: 90_000 });

t.test('six cooperative calls: the real name, no acknowledgement taken as an answer, slots in +05:30', async (t) => {
  const numbers = Array.from({ length: 6 }, (_, i) => `+9198123456${String(10 + i)}`);
  const ids: string[] = [];
  for (const to of numbers) {
    const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default', tools: ['calendar_booking', 'crm_sync'] } });
    t.equal(d.status, 201, JSON.stringify(d.body));
    ids.push(d.body.id);
  }
  for (const id of ids) {
    const call = await waitEnded(id);
    const persona = new SimulatedCallee(id, 'cooperative').persona;
    t.equal(call.status, 'completed', id);
    t.equal(call.extracted_data.customer_name, persona.name, `${id}: the name the callee gave`);
    t.notOk(isBackchannel(String(call.extracted_data.customer_name)), 'never an acknowledgement');
    t.match(call.extracted_data.scheduled_slot, /T\d\d:\d\d:\d\d\+05:30$/, `${id}: slot read in India's zone (${persona.slot})`);
    t.equal(call.extracted_data.budget, formatAmount(findBudget(persona.budget)!), 'the budget in its normal form');
    const events = (await api(srv.baseUrl, 'GET', `/calls/${id}/events?limit=500`, auth)).body.data as Array<{ type: string; speaker?: string; text?: string }>;
    const agentSaid = events.filter((e) => e.type === 'transcript' && e.speaker === 'agent').map((e) => e.text).join(' ');
    t.notMatch(agentSaid, /Thank you, (Okay|Uh huh|Yeah|Right)\b/i);
  }
});

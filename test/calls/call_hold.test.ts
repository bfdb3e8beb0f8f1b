/**
 * A simulated call whose callee asks for a person (+15005550007) waits on hold in the handoff queue instead of
 * being dropped: the queue shows it waiting; nobody accepting within the tenant's hold time gets the call-back
 * offer, and the callee's yes schedules a call-back lead (a no or silence is covered in test/session/machine_hold.test.ts);
 * a caller who hangs up while waiting leaves the queue. Tests wait for states, never for guessed times.
 */
import t from 'tap';
import { api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '20' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const db = srv.services.db;

async function dispatch(to: string): Promise<{ id: string; conversation_id: string }> {
  const d = await api(b, 'POST', '/calls/dispatch', { token: admin, body: { to, agent_id: 'default', context: { customer_name: 'Meera' } } });
  if (d.status !== 201) throw new Error(`dispatch: ${d.status} ${JSON.stringify(d.body)}`);
  const c = await db.query<{ conversation_id: string }>('SELECT conversation_id FROM calls WHERE id = $1', [d.body.id]);
  return { id: d.body.id, conversation_id: c.rows[0].conversation_id };
}

/** Polls the handoff until `state` (the call's own progress, not a timer), within a generous bound. */
async function handoffReaches(id: string, state: string) {
  for (let i = 0; i < 600; i++) {
    const h = await api(b, 'GET', `/handoffs/${id}`, { token: admin });
    if (h.status === 200 && h.body.handoff_state === state) return h.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`handoff ${id} never reached ${state}`);
}

t.test('settings: defaults, validation, admin only', async (t) => {
  t.same((await api(b, 'GET', '/handoffs/settings', { token: admin })).body, { hold_seconds: 60, callback_delay_minutes: 15 });
  t.equal((await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: -1 } })).status, 400);
  t.equal((await api(b, 'PUT', '/handoffs/settings', { token: admin, body: {} })).status, 400);
  t.equal((await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 'x' } })).status, 400);
  const op = await api(b, 'POST', '/users', { token: admin, body: { email: 'hold-op@example.com', password: 'operator-password-1', role: 'operator' } });
  t.equal(op.status, 201);
  const opToken = await login(b, 'hold-op@example.com', 'operator-password-1');
  t.equal((await api(b, 'PUT', '/handoffs/settings', { token: opToken, body: { hold_seconds: 5 } })).status, 403);
  t.equal((await api(b, 'GET', '/handoffs/settings', { token: opToken })).status, 200);
});

t.test('waiting on hold is visible in the queue; a caller who hangs up leaves it', async (t) => {
  await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 3600 } });
  const call = await dispatch('+15005550007');
  const h = await handoffReaches(call.conversation_id, 'waiting');
  t.equal(h.call_id, call.id);
  t.ok(Date.parse(h.queued_at) > 0, 'queued_at: the app shows how long it waits');
  const listed = await api(b, 'GET', '/handoffs', { token: admin });
  t.ok(listed.body.data.some((x: { id: string }) => x.id === call.conversation_id), 'listed as waiting');
  t.equal((await api(b, 'POST', `/calls/${call.id}/hangup`, { token: admin })).status < 300, true);
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.equal(ended.status, 'completed');
  t.equal(ended.human_escalation, true);
  const closed = await handoffReaches(call.conversation_id, 'resolved');
  t.equal(closed.history.at(-1).action, 'call_ended');
  t.equal((await api(b, 'POST', `/handoffs/${call.conversation_id}/accept`, { token: admin })).status, 409, 'nothing to take any more');
});

t.test('nobody accepts: the call-back offer, the callee says yes, a call-back is scheduled', async (t) => {
  await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 10, callback_delay_minutes: 30 } });
  const call = await dispatch('+15005550007');
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.equal(ended.status, 'completed');
  t.equal(ended.ended_reason, 'escalation_unanswered');
  t.equal(ended.human_escalation, true);
  t.ok(ended.actions_triggered.some((a: { type: string; status: string }) => a.type === 'callback.schedule' && a.status === '201_scheduled'), 'the call-back is an action of the call');
  const said = (await db.query<{ role: string; text: string }>('SELECT role, text FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [call.conversation_id])).rows;
  const agent = said.filter((m) => m.role === 'agent').map((m) => m.text);
  t.ok(agent.some((x) => /stay on the line/.test(x)), 'the hold message');
  t.ok(agent.some((x) => /call you back\?/.test(x)), 'the polite message and the offer');
  t.ok(agent.some((x) => /will call you back soon/.test(x)), 'the confirmation');
  const lead = (await db.query<{ id: string; e164: string; source: string; call_status: string; scheduled_for: Date; name: string; conversation_id: string }>(
    `SELECT id, e164, source, call_status, scheduled_for, name, conversation_id FROM leads WHERE created_by = $1`, [`call:${call.id}`])).rows[0];
  t.match(lead, { e164: '+15005550007', source: 'callback', call_status: 'scheduled', name: 'Meera', conversation_id: call.conversation_id });
  const job = (await db.query<{ status: string; due_at: Date }>('SELECT status, due_at FROM lead_call_jobs WHERE lead_id = $1', [lead.id])).rows[0];
  t.equal(job.status, 'pending');
  const delayMin = (new Date(job.due_at).getTime() - Date.parse(ended.ended_at)) / 60_000;
  t.ok(delayMin > 29 && delayMin <= 30, `dialed about 30 minutes later (${delayMin.toFixed(2)})`);
  const h = await handoffReaches(call.conversation_id, 'resolved');
  t.ok(h.history.some((e: { action: string }) => e.action === 'unanswered'), 'the handoff left the queue unanswered');
});

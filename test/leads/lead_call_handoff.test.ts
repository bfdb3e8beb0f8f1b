/**
 * Scenario across areas: a lead's call (real call engine) is transferred to a human; its disclosure conversation
 * becomes a waiting handoff; the operator accepts and replies; the reply reaches the call's live stream.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { setClock } from '../helpers/lead_fixtures.js';

const srv = await startTestServer({ env: { LEAD_SCHEDULER_TICK_MS: '0' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);
const calls = (srv.services as any).calls;

t.test('lead call -> transfer -> handoff -> operator reply on the live stream', { skip: !calls?.transfer && 'call engine not wired' }, async (t) => {
  setClock(srv, '2026-03-02T06:00:00Z'); // 11:30 IST
  const lead = await api(b, 'POST', '/leads', { token, body: { name: 'Meera', phone: '+919811122233', source: 'web', domain: 'realestate' } });
  t.equal(lead.body.call.status, 'dispatched');
  const callId = lead.body.call.id;
  const tr = await calls.transfer('ten_dev', callId, { by: 'test' });
  t.equal(tr.conversation_id, lead.body.conversation_id);
  t.equal(tr.handoff_state, 'waiting');
  const list = await api(b, 'GET', '/handoffs?handoff_state=waiting', { token });
  const h = list.body.data.find((x: { id: string }) => x.id === lead.body.conversation_id);
  t.match(h, { lead_id: lead.body.id, call_id: callId, handoff_state: 'waiting' });
  t.equal((await api(b, 'POST', `/handoffs/${h.id}/accept`, { token })).status, 200);
  const rep = await api(b, 'POST', `/handoffs/${h.id}/reply`, { token, body: { text: 'Hi Meera, Priya here from sales.' } });
  t.equal(rep.status, 200);
  t.equal(rep.body.published, true);
  const ev = await srv.services.db.query<{ type: string; payload: any }>(`SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq`, [callId]);
  t.ok(ev.rows.some((e) => e.type === 'transfer'));
  t.ok(ev.rows.some((e) => e.type === 'transcript' && e.payload.speaker === 'operator' && e.payload.text === 'Hi Meera, Priya here from sales.'));
  await calls.hangup('ten_dev', callId).catch(() => {});
});

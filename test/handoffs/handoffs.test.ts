/**
 * Handoff state machine: waiting -> with_operator (one operator) -> resolved (then the agent again, or closed); 409 on
 * illegal moves; two operators accepting at once (one wins); the visitor's turns reach the operator both before and
 * after the accept; replies appended and published on the call's live stream; who/when recorded.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { userToken } from '../helpers/lead_fixtures.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const op1 = await userToken(srv, 'ten_dev', 'op1@example.com', 'operator');
const op2 = await userToken(srv, 'ten_dev', 'op2@example.com', 'operator');
const other = await userToken(srv, 'ten_other', 'op@other.example', 'operator');
const sub = async (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub as string;

/** A tenant conversation the agent hands to a human (the caller asks for one). */
async function handedOff(token = op1): Promise<string> {
  const c = await api(b, 'POST', '/conversations', { token, body: { domain: 'realestate' } });
  const r = await api(b, 'POST', `/conversations/${c.body.id}/turns`, { token, body: { text: 'Can I speak to a human please?' } });
  if (r.body.state !== 'handoff') throw new Error(`expected handoff, got ${JSON.stringify(r.body)}`);
  return c.body.id;
}

t.test('an escalated demo conversation is listed as waiting; the full cycle records who and when', async (t) => {
  const id = await handedOff();
  const list = await api(b, 'GET', '/handoffs', { token: op1 });
  t.equal(list.status, 200);
  const item = list.body.data.find((h: { id: string }) => h.id === id);
  t.match(item, { handoff_state: 'waiting', reason: 'caller_requested_human', accepted_by: null, accepted_at: null, ended_at: null, resolution: null });
  t.ok(Date.parse(item.queued_at) > 0, 'queued_at');
  const early = await api(b, 'POST', `/conversations/${id}/turns`, { token: op1, body: { text: 'hello?' } });
  t.equal(early.status, 200, 'a turn while waiting is taken for the operator');
  t.match(early.body, { delivered_to: 'operator', state: 'handoff', handoff: { handoff_state: 'waiting' }, agent: { text: '' }, caller: { text: 'hello?' } });
  t.equal((await api(b, 'POST', `/handoffs/${id}/reply`, { token: op1, body: { text: 'hi' } })).status, 409, 'reply before accept');
  t.equal((await api(b, 'POST', `/handoffs/${id}/resolve`, { token: op1 })).status, 409, 'resolve before accept');
  const acc = await api(b, 'POST', `/handoffs/${id}/accept`, { token: op1 });
  t.equal(acc.status, 200);
  t.equal(acc.body.handoff_state, 'with_operator');
  t.ok(Date.parse(acc.body.accepted_at) >= Date.parse(acc.body.queued_at), 'accepted_at');
  t.equal(acc.body.accepted_by, await sub(op1));
  t.equal((await api(b, 'POST', `/handoffs/${id}/accept`, { token: op1 })).status, 409, 'accept twice');
  const rep2 = await api(b, 'POST', `/handoffs/${id}/reply`, { token: op2, body: { text: 'me too' } });
  t.equal(rep2.status, 409, 'only the accepting operator replies');
  const rep = await api(b, 'POST', `/handoffs/${id}/reply`, { token: op1, body: { text: 'Hello, this is Priya from the sales team.' } });
  const answer = await api(b, 'POST', `/conversations/${id}/turns`, { token: op1, body: { text: 'Hi Priya, I want a 2BHK.' } });
  t.match(answer.body, { delivered_to: 'operator', handoff: { handoff_state: 'with_operator' } }, 'the visitor answers the operator, no 409');
  t.equal(rep.status, 200);
  t.equal(rep.body.message.text, 'Hello, this is Priya from the sales team.');
  t.equal(rep.body.published, null, 'no call, nothing to publish');
  t.equal((await api(b, 'POST', `/handoffs/${id}/resolve`, { token: op2 })).status, 409, 'another operator cannot resolve');
  const res = await api(b, 'POST', `/handoffs/${id}/resolve`, { token: op1 });
  t.equal(res.status, 200);
  t.equal(res.body.handoff_state, 'resolved');
  t.equal(res.body.resolution, 'close');
  t.ok(Date.parse(res.body.ended_at) >= Date.parse(res.body.accepted_at), 'ended_at');
  t.same(res.body.history.map((e: { action: string; from_state: string; to_state: string }) => [e.action, e.from_state, e.to_state]),
    [['accept', 'waiting', 'with_operator'], ['reply', 'with_operator', 'with_operator'], ['resolve', 'with_operator', 'resolved']]);
  t.ok(res.body.history.every((e: { by: string; at: string }) => e.by === res.body.accepted_by && !Number.isNaN(Date.parse(e.at))));
  for (const action of ['accept', 'resolve']) t.equal((await api(b, 'POST', `/handoffs/${id}/${action}`, { token: op1 })).status, 409, `${action} after resolve`);
  t.equal((await api(b, 'POST', `/handoffs/${id}/reply`, { token: op1, body: { text: 'x' } })).status, 409, 'reply after resolve');
  const conv = await api(b, 'GET', `/conversations/${id}`, { token: op1 });
  t.equal(conv.body.state, 'closed');
  t.same(conv.body.messages.map((m: { role: string }) => m.role), ['caller', 'agent', 'caller', 'operator', 'caller']);
  t.equal((await api(b, 'POST', `/conversations/${id}/turns`, { token: op1, body: { text: 'still there?' } })).status, 409, 'closed: nobody answers');
  t.notOk((await api(b, 'GET', '/handoffs', { token: op1 })).body.data.some((h: { id: string }) => h.id === id), 'default list: open only');
  t.ok((await api(b, 'GET', '/handoffs?handoff_state=resolved', { token: op1 })).body.data.some((h: { id: string }) => h.id === id));
});

t.test('two operators accepting at once: exactly one wins, the other gets 409', async (t) => {
  for (let round = 0; round < 5; round++) {
    const id = await handedOff();
    const rs = await Promise.all([op1, op2, admin].map((tok) => api(b, 'POST', `/handoffs/${id}/accept`, { token: tok })));
    const statuses = rs.map((r) => r.status).sort();
    t.same(statuses, [200, 409, 409], `round ${round}`);
    const loser = rs.find((r) => r.status === 409)!;
    t.equal(loser.body.code, 'conflict');
    t.equal(loser.body.handoff_state, 'with_operator');
    const h = await api(b, 'GET', `/handoffs/${id}`, { token: op1 });
    t.equal(h.body.history.length, 1, 'one accept recorded');
  }
});

t.test('an admin may resolve a handoff another operator accepted', async (t) => {
  const id = await handedOff();
  await api(b, 'POST', `/handoffs/${id}/accept`, { token: op1 });
  t.equal((await api(b, 'POST', `/handoffs/${id}/resolve`, { token: admin })).status, 200);
});

t.test('resolved back to the agent: it answers the next turn; asking again opens a new handoff', async (t) => {
  const id = await handedOff();
  await api(b, 'POST', `/handoffs/${id}/accept`, { token: op1 });
  t.equal((await api(b, 'POST', `/handoffs/${id}/resolve`, { token: op1, body: { then: 'bogus' } })).status, 400, 'then is agent or close');
  const res = await api(b, 'POST', `/handoffs/${id}/resolve`, { token: op1, body: { then: 'agent' } });
  t.equal(res.status, 200);
  t.match(res.body, { handoff_state: 'resolved', resolution: 'agent' });
  t.equal(res.body.history.at(-1).action, 'resolve_to_agent');
  const turn = await api(b, 'POST', `/conversations/${id}/turns`, { token: op1, body: { text: 'My name is Priya.' } });
  t.equal(turn.status, 200);
  t.equal(turn.body.state, 'active');
  t.notOk(turn.body.delivered_to === 'operator', 'the agent answers');
  t.ok(turn.body.agent.text.length > 0, 'with words');
  const again = await api(b, 'POST', `/conversations/${id}/turns`, { token: op1, body: { text: 'Can I speak to a human please?' } });
  t.match(again.body, { state: 'handoff', handoff: { handoff_state: 'waiting' } });
  const h = await api(b, 'GET', `/handoffs/${id}`, { token: op2 });
  t.match(h.body, { handoff_state: 'waiting', accepted_by: null, accepted_at: null, ended_at: null, resolution: null });
  t.ok(Date.parse(h.body.queued_at) >= Date.parse(res.body.ended_at), 'a new time in the queue');
  t.equal((await api(b, 'POST', `/handoffs/${id}/accept`, { token: op2 })).status, 200, 'another operator may take the new one');
});

t.test('an anonymous visitor and the demo tenant\'s operator chat both ways', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  const asked = await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'Can I speak to a human please?' } });
  t.match(asked.body, { state: 'handoff', handoff: { handoff_state: 'waiting' } });
  const id = c.body.id;
  t.equal((await api(b, 'POST', `/handoffs/${id}/accept`, { token: op1 })).status, 200);
  await api(b, 'POST', `/handoffs/${id}/reply`, { token: op1, body: { text: 'Hello from the team.' } });
  const seen = await api(b, 'GET', `/conversations/${id}`);
  t.match(seen.body, { state: 'handoff', handoff_state: 'with_operator', tenant_id: null, accepted_by: null }, 'the visitor is not told who');
  t.equal(seen.body.messages.at(-1).text, 'Hello from the team.');
  const back = await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'Thanks, I need a flat.', reply_audio: true } });
  t.equal(back.status, 200);
  t.equal(back.body.delivered_to, 'operator');
  t.notOk(back.body.reply_audio, 'no agent speech for a message to a person');
  const opView = await api(b, 'GET', `/conversations/${id}`, { token: op1 });
  t.equal(opView.body.messages.at(-1).text, 'Thanks, I need a flat.');
  t.equal(opView.body.messages.at(-1).role, 'caller');
});

t.test('replies on a call conversation are published on the call live stream', async (t) => {
  const id = await handedOff();
  const callId = 'call_' + 'ab'.repeat(12);
  await srv.services.db.query(`INSERT INTO calls (id, tenant_id, agent, to_number, language, status, conversation_id) VALUES ($1, 'ten_dev', '{}', '+919812345678', 'en-IN', 'in_progress', $2)`, [callId, id]);
  await srv.services.db.query('UPDATE conversations SET call_id = $1 WHERE id = $2', [callId, id]);
  await api(b, 'POST', `/handoffs/${id}/accept`, { token: op2 });
  const rep = await api(b, 'POST', `/handoffs/${id}/reply`, { token: op2, body: { text: 'A human here.' } });
  t.equal(rep.status, 200);
  t.equal(rep.body.published, true);
  const ev = await srv.services.db.query(`SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq`, [callId]);
  t.equal(ev.rows.length, 1);
  t.equal(ev.rows[0].type, 'transcript');
  t.match(ev.rows[0].payload, { speaker: 'operator', text: 'A human here.' });
});

t.test('tenant isolation and auth', async (t) => {
  const id = await handedOff();
  t.notOk((await api(b, 'GET', '/handoffs', { token: other })).body.data.some((h: { id: string }) => h.id === id));
  for (const action of ['accept', 'resolve']) t.equal((await api(b, 'POST', `/handoffs/${id}/${action}`, { token: other })).status, 404);
  t.equal((await api(b, 'POST', `/handoffs/${id}/reply`, { token: other, body: { text: 'x' } })).status, 404);
  t.equal((await api(b, 'GET', `/handoffs/${id}`, { token: other })).status, 404);
  t.equal((await api(b, 'GET', '/handoffs')).status, 401);
  t.equal((await api(b, 'GET', '/handoffs?handoff_state=bogus', { token: op1 })).status, 400);
  t.equal((await api(b, 'POST', '/handoffs/conv_missing/accept', { token: op1 })).status, 404);
});

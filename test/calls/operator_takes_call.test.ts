/**
 * An operator takes a simulated call from the handoff queue: the agent stops speaking, the operator's messages are
 * spoken to the caller (the simulated callee hears and answers them), the operator ends the call (transferred to
 * operator:<user id>, the handoff's times in the webhook) or hands it back to the agent; moves on an ended call
 * answer 409. Tests wait for states and stored items, never for guessed times.
 */
import t from 'tap';
import { api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '20', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const admin = await login(b);
const sub = JSON.parse(Buffer.from(admin.split('.')[1], 'base64url').toString()).sub as string;
const db = srv.services.db;
const { received, url: hookUrl } = await webhookReceiver(t);
await api(b, 'PUT', '/handoffs/settings', { token: admin, body: { hold_seconds: 3600 } });

const until = async <T>(what: string, f: () => Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 600; i++) { const v = await f(); if (v !== undefined) return v; await new Promise((r) => setTimeout(r, 100)); }
  throw new Error(`never: ${what}`);
};
const messages = async (conv: string) =>
  (await db.query<{ role: string; text: string }>('SELECT role, text FROM conversation_messages WHERE conversation_id = $1 ORDER BY id', [conv])).rows;

async function callOnHold(): Promise<{ id: string; conv: string }> {
  const d = await api(b, 'POST', '/calls/dispatch', { token: admin, body: { to: '+15005550007', agent_id: 'default', webhook_url: hookUrl } });
  const conv = (await db.query<{ conversation_id: string }>('SELECT conversation_id FROM calls WHERE id = $1', [d.body.id])).rows[0].conversation_id;
  // on hold once the hold message is in the conversation (the handoff is waiting by then)
  await until('on hold', async () => ((await messages(conv)).some((m) => /stay on the line/.test(m.text)) ? true : undefined));
  return { id: d.body.id, conv };
}

t.test('the operator takes the call, talks with the caller, and ends it: transferred to operator:<id>', async (t) => {
  const call = await callOnHold();
  const acc = await api(b, 'POST', `/handoffs/${call.conv}/accept`, { token: admin });
  t.equal(acc.status, 200);
  const before = (await messages(call.conv)).length;
  const rep = await api(b, 'POST', `/handoffs/${call.conv}/reply`, { token: admin, body: { text: 'Hello, this is Sam from the sales team. How can I help you?' } });
  t.equal(rep.status, 200);
  t.equal(rep.body.published, true);
  // the callee heard the operator's question (spoken on the line) and answered it (a statement it lets pass)
  const after = await until('the caller answers the operator', async () => {
    const m = (await messages(call.conv)).slice(before);
    return m.some((x) => x.role === 'caller') ? m : undefined;
  });
  t.same(after.map((m) => m.role), ['operator', 'caller'], 'the operator spoke, the caller answered, the agent stayed quiet');
  const res = await api(b, 'POST', `/handoffs/${call.conv}/resolve`, { token: admin, body: { then: 'close' } });
  t.equal(res.status, 200);
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.equal(ended.status, 'completed');
  t.equal(ended.ended_reason, 'transferred');
  const items = (await db.query<{ type: string; payload: { target?: string } }>('SELECT type, payload FROM call_events WHERE call_id = $1 ORDER BY seq', [call.id])).rows;
  t.ok(items.some((i) => i.type === 'transfer' && i.payload.target === `operator:${sub}`), 'the transfer item names the operator');
  const hook = await until('webhook', async () => received.find((r) => r.body.includes(call.id)));
  const payload = JSON.parse(hook.body);
  t.equal(payload.ended_reason, 'transferred');
  t.equal(payload.handoff.target, `operator:${sub}`);
  const [q, a, e] = [payload.handoff.queued_at, payload.handoff.accepted_at, payload.handoff.ended_at].map(Date.parse);
  t.ok(q <= a && a <= e, 'queued, accepted, ended in order');
  for (const [action, body] of [['accept', undefined], ['reply', { text: 'hello?' }], ['resolve', undefined]] as const) {
    t.equal((await api(b, 'POST', `/handoffs/${call.conv}/${action}`, { token: admin, body })).status, 409, `${action} on an ended call`);
  }
});

t.test('the operator hands the call back to the agent, which speaks again', async (t) => {
  const call = await callOnHold();
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/accept`, { token: admin })).status, 200);
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/resolve`, { token: admin, body: { then: 'agent' } })).status, 200);
  await until('the agent is back', async () => ((await messages(call.conv)).some((m) => m.role === 'agent' && /AI assistant again/.test(m.text)) ? true : undefined));
  t.pass('the agent took the call again');
  t.equal((await api(b, 'POST', `/calls/${call.id}/hangup`, { token: admin })).status < 300, true);
  const ended = await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.not(ended.ended_reason, 'transferred');
});

t.test('a call that ended while waiting cannot be taken', async (t) => {
  const call = await callOnHold();
  await api(b, 'POST', `/calls/${call.id}/hangup`, { token: admin });
  await waitForCallEnd(b, call.id, { authorization: `Bearer ${admin}` });
  t.equal((await api(b, 'POST', `/handoffs/${call.conv}/accept`, { token: admin })).status, 409);
});

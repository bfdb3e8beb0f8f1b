import t from 'tap';
import { api, API_KEY, login, startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { ConversationRepo } from '../../src/repos/conversations.js';
import { connect, insertCall, otherTenant, wsUrl } from './helpers.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const deps = srv.services;
const jwt = await login(srv.baseUrl);
const conversations = new ConversationRepo(deps.db);

/** A live call with a conversation, as the call engine leaves them. */
async function liveCall() {
  const conv = await conversations.create({ tenantId: DEV_TENANT_ID, domain: 'real_estate' });
  const callId = await insertCall(deps, DEV_TENANT_ID, { conversationId: conv.id });
  await conversations.setCall(DEV_TENANT_ID, conv.id, callId);
  return { callId, convId: conv.id };
}

t.test('a listener reacts to an escalation by sending transfer on the socket', async (t) => {
  const { callId, convId } = await liveCall();
  const { ws, c } = await connect(wsUrl(srv.baseUrl, `/calls/${callId}/stream?access_token=${jwt}`));
  await deps.callEvents.publish(DEV_TENANT_ID, callId, { type: 'escalation', reason: 'caller asked for a person' });
  const [esc] = await c!.until((g) => g.length >= 1);
  t.equal(esc.type, 'escalation');
  ws!.send(JSON.stringify({ type: 'transfer', target: '+14155550199' }));
  const got = await c!.until((g) => g.some((m) => m.type === 'transfer'), 'transfer item');
  const item = got.find((m) => m.type === 'transfer');
  t.match(item, { type: 'transfer', call_id: callId, target: '+14155550199' });
  t.type(item.by, 'string');
  t.ok(item.seq > esc.seq);
  const conv = await conversations.get(DEV_TENANT_ID, convId);
  t.equal(conv?.state, 'handoff', 'conversation moved to handoff');
  t.equal(conv?.handoff_state, 'waiting');
  ws!.close();
});

t.test('POST /v1/calls/:id/transfer with the API key; other tenants and bad input refused', async (t) => {
  const { callId, convId } = await liveCall();
  const { ws, c } = await connect(wsUrl(srv.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${jwt}` });
  const other = await otherTenant(deps);
  const foreign = await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { token: other.token, body: {} });
  t.equal(foreign.status, 404, "another tenant's operator cannot transfer my call");
  const bad = await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { token: jwt, body: { target: 'not-a-number' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'validation_failed');
  const extra = await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { token: jwt, body: { target: '+14155550199', force: true } });
  t.equal(extra.status, 400, 'unknown fields refused');
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { body: {} })).status, 401);
  const r = await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { headers: { 'x-api-key': API_KEY }, body: {} });
  t.equal(r.status, 200, JSON.stringify(r.body));
  const got = await c!.until((g) => g.some((m) => m.type === 'transfer'));
  t.match(got.find((m) => m.type === 'transfer'), { type: 'transfer', call_id: callId });
  t.equal((await conversations.get(DEV_TENANT_ID, convId))?.state, 'handoff');
  ws!.close();
});

t.test('a call that has ended cannot be transferred; the socket says why', async (t) => {
  const callId = await insertCall(deps, DEV_TENANT_ID, { status: 'completed' });
  const r = await api(srv.baseUrl, 'POST', `/calls/${callId}/transfer`, { token: jwt, body: {} });
  t.equal(r.status, 409);
  t.equal(r.body.code, 'conflict');
  deps.stream.edge.configure({ endLingerMs: 5000 });
  const { ws, c } = await connect(wsUrl(srv.baseUrl, `/calls/${callId}/stream`), { authorization: `Bearer ${jwt}` });
  ws!.send(JSON.stringify({ type: 'transfer' }));
  const [reply] = await c!.until((g) => g.length >= 1);
  t.match(reply, { type: 'error', request: 'transfer', code: 'conflict' });
  ws!.close();
});

/**
 * Warm transfer on the simulator (the embedded default): the caller is held while the transfer leg hears the call's
 * summary, the simulated carrier records both sides, and the call ends transferred with the target and the mode in
 * GET and in the call.completed webhook. Cold stays available (the agent's default, or the request's mode), and a
 * transfer request is validated.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';
import { connect, wsUrl } from '../stream/helpers.js';
import { waitFor } from '../providers/live_env.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '4' } });
t.teardown(() => srv.close());
const key = { 'x-api-key': API_KEY };
const admin = await login(srv.baseUrl);
const sim = srv.services.adapters.simCarrier!;
const { received, url: hookUrl } = await webhookReceiver(t);
const until = waitFor;

/** A call whose session runs: the agent has said something (an agent transcript item is stored). */
async function liveCall(agent: string, to: string): Promise<string> {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to, agent_id: agent, webhook_url: hookUrl } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  await until('the agent to speak', async () => ((await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/events`, { headers: key })).body.data as Array<{ type: string; speaker?: string }>)
    .some((i) => i.type === 'transcript' && i.speaker === 'agent') || undefined);
  return d.body.id;
}

const webhookOf = (id: string) => until('the webhook', () => received.map((r) => JSON.parse(r.body)).find((b) => b.call_id === id));

t.test('the agent setting transfer_mode: cold by default, warm when set, anything else refused', async (t) => {
  const put = await api(srv.baseUrl, 'PUT', '/agents/plain', { token: admin, body: { transfer_number: '+14155550177' } });
  t.equal(put.status, 201);
  t.equal(put.body.transfer_mode, 'cold');
  const warm = await api(srv.baseUrl, 'PUT', '/agents/warm', { token: admin, body: { transfer_number: '+14155550177', transfer_mode: 'warm' } });
  t.equal(warm.body.transfer_mode, 'warm');
  const bad = await api(srv.baseUrl, 'PATCH', '/agents/warm', { token: admin, body: { transfer_mode: 'lukewarm' } });
  t.equal(bad.status, 400);
  t.equal(bad.body.code, 'validation_failed');
  const listed = (await api(srv.baseUrl, 'GET', '/agents', { token: admin })).body.data as Array<{ id: string; transfer_mode: string }>;
  t.equal(listed.find((a) => a.id === 'warm')?.transfer_mode, 'warm', 'unchanged by the refused patch');
  t.equal(listed.find((a) => a.id === 'default')?.transfer_mode, 'cold', 'the default agent: cold');
});

t.test('warm by the agent\'s setting: the leg hears the summary, the caller holds, the call ends transferred (warm)', async (t) => {
  const id = await liveCall('warm', '+14155550191');
  const r = await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body: {} });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body, { live: true, mode: 'warm', target: 'operator' });
  const call = await waitForCallEnd(srv.baseUrl, id, key);
  t.match(call, { status: 'completed', ended_reason: 'transferred', transfer: { target: '+14155550177', mode: 'warm' } });
  const leg = sim.transfers.get(id);
  t.match(leg, { target: '+14155550177', mode: 'warm', callerHeldFor: 'hold_audio' });
  t.match(leg?.summaryHeard, /^Call from the voice agent\. .*Next step:/, 'the summary of the call so far (who, what, budget, next step)');
  t.ok(leg!.summaryHeard!.length <= 1000);
  const hook = await webhookOf(id);
  t.same(hook.transfer, { target: '+14155550177', mode: 'warm' }, 'the webhook says where and how');
  const items = (await api(srv.baseUrl, 'GET', `/calls/${id}/events`, { headers: key })).body.data as Array<{ type: string; mode?: string }>;
  t.equal(items.find((i) => i.type === 'transfer')?.mode, 'warm', 'the live item says warm');
});

t.test('the request\'s own summary is what the leg hears', async (t) => {
  const id = await liveCall('plain', '+14155550192');
  const summary = 'Asha wants a two-bedroom flat in Pune, budget 80 lakh; she asked about parking.';
  const r = await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body: { target: '+14155550166', mode: 'warm', summary } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  const call = await waitForCallEnd(srv.baseUrl, id, key);
  t.same(call.transfer, { target: '+14155550166', mode: 'warm' });
  t.equal(sim.transfers.get(id)?.summaryHeard, summary);
});

t.test('cold stays available: the agent\'s default, or mode cold over a warm agent; nothing is said to the leg', async (t) => {
  for (const [agent, to, body] of [['plain', '+14155550193', {}], ['warm', '+14155550194', { mode: 'cold' }]] as const) {
    const id = await liveCall(agent, to);
    const r = await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body });
    t.equal(r.body.mode, 'cold');
    const call = await waitForCallEnd(srv.baseUrl, id, key);
    t.same(call.transfer, { target: '+14155550177', mode: 'cold' });
    t.same(sim.transfers.get(id), { target: '+14155550177', mode: 'cold' }, 'no hold, no summary');
    t.same((await webhookOf(id)).transfer, { target: '+14155550177', mode: 'cold' });
  }
});

t.test('a key the caller presses for a person transfers warm with the agent\'s setting', async (t) => {
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/warm/keypad', { token: admin, body: { 9: 'operator' } })).status, 200);
  // +15005550010 answers the first question by pressing 9
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550010', agent_id: 'warm' } });
  const call = await waitForCallEnd(srv.baseUrl, d.body.id, key);
  t.match(call, { ended_reason: 'transferred', transfer: { target: '+14155550177', mode: 'warm' } });
  t.match(sim.transfers.get(d.body.id), { mode: 'warm', callerHeldFor: 'hold_audio', summaryHeard: /Call from the voice agent/ });
});

t.test('bad transfer requests are refused with problem+json; an ended call answers 409', async (t) => {
  const id = await liveCall('plain', '+14155550195');
  for (const [body, why] of [
    [{ mode: 'cold', summary: 'words for nobody' }, 'a summary on a cold transfer'],
    [{ mode: 'hot' }, 'an unknown mode'],
    [{ mode: 'warm', summary: 'x'.repeat(1001) }, 'a summary over 1000 characters'],
    [{ mode: 'warm', summary: 'two\nlines' }, 'a summary with a control character'],
    [{ mode: 'warm', summary: '   ' }, 'an empty summary'],
  ] as const) {
    const r = await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body });
    t.equal(r.status, 400, why);
    t.equal(r.body.code, 'validation_failed', why);
    t.match(r.headers.get('content-type'), /application\/problem\+json/, why);
  }
  await api(srv.baseUrl, 'POST', `/calls/${id}/hangup`, { headers: key });
  await waitForCallEnd(srv.baseUrl, id, key);
  const late = await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body: { mode: 'warm' } });
  t.equal(late.status, 409);
  t.equal(late.body.code, 'conflict');
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${id}`, { headers: key })).body.transfer, null, 'a call that was not transferred says null');
});

t.test('every operator action on a call that ended transferred answers 409', async (t) => {
  const id = await liveCall('warm', '+14155550196');
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${id}/transfer`, { headers: key, body: {} })).status, 200);
  const call = await waitForCallEnd(srv.baseUrl, id, key);
  t.equal(call.ended_reason, 'transferred');
  const actions: Array<[string, string, unknown]> = [
    ['hang-up', `/calls/${id}/hangup`, undefined],
    ['a cold transfer', `/calls/${id}/transfer`, { mode: 'cold' }],
    ['a warm transfer', `/calls/${id}/transfer`, { mode: 'warm', summary: 'again' }],
    ['tones', `/calls/${id}/tones`, { digits: '1' }],
    ['accepting its handoff', `/handoffs/${call.conversation_id}/accept`, undefined],
    ['replying on its handoff', `/handoffs/${call.conversation_id}/reply`, { text: 'hello?' }],
    ['resolving its handoff', `/handoffs/${call.conversation_id}/resolve`, undefined],
  ];
  for (const [what, path, body] of actions) {
    const r = await api(srv.baseUrl, 'POST', path, { token: admin, body });
    t.equal(r.status, 409, what);
    t.equal(r.body.code, 'conflict', what);
  }
  srv.services.stream.edge.configure({ endLingerMs: 5000 });
  const { ws, c } = await connect(wsUrl(srv.baseUrl, `/calls/${id}/stream`), { authorization: `Bearer ${admin}` });
  ws!.send(JSON.stringify({ type: 'transfer', mode: 'warm' }));
  const reply = await c!.until((g) => g.some((m) => m.type === 'error'));
  t.match(reply.find((m) => m.type === 'error'), { type: 'error', request: 'transfer', code: 'conflict' }, 'the stream\'s transfer message too');
  ws!.close();
  t.equal((await api(srv.baseUrl, 'GET', `/calls/${id}`, { headers: key })).body.transfer.mode, 'warm', 'the record is unchanged');
});

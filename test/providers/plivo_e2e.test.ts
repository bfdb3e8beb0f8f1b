/**
 * CARRIER=plivo in live mode against the local Plivo: dispatch -> Make Call -> ring/answer callbacks -> the
 * answer XML's stream -> corpus audio and a spoken answer in real time -> agent turns played and checkpointed ->
 * hang-up over REST -> hangup callback -> call.completed. Then what goes wrong: busy, no answer, an invalid
 * number, a rate limit retried, a 5xx, a ring that never ends, a forged callback, a transfer.
 */
import t from 'tap';
import { api, login } from '../helpers/server.js';
import { FakePlivo, type PlivoBehaviour } from '../fakes/plivo.js';
import { auth, callOf, calleeAnswer, calleeGreeting, ENDED, startLiveService, waitFor, webhookReceiver } from './live_env.js';

const behaviours: Record<string, PlivoBehaviour> = {
  '+919800000001': 'busy', '+919800000002': 'no-answer', '+919800000003': 'invalid', '+919800000004': 'ratelimit-once',
  '+919800000005': 'server-error', '+919800000006': 'silent', '+919800000007': 'machine', '+919800000008': 'ratelimit',
  '+919800000009': 'slow-answer', '+919800000010': 'no-answer',
};
const fake = await new FakePlivo({ authId: 'MAFAKEAUTHID000000001', authToken: 'plivo-test-auth-token', audio: calleeGreeting(), reply: calleeAnswer(), interrupt: calleeAnswer('sorry that is not what I asked'),
  behaviour: (to) => behaviours[`+${to}`] ?? 'answer',
  // the human of the warm transfer takes a second or two to pick up; the caller's move is done well before
  ringMs: (to) => (to === '919812300099' ? 1500 : undefined) }).start();
const live = await startLiveService({ CARRIER: 'plivo', PLIVO_AUTH_ID: 'MAFAKEAUTHID000000001', PLIVO_AUTH_TOKEN: 'plivo-test-auth-token',
  PLIVO_FROM_NUMBER: '+918031234567', PLIVO_API_BASE_URL: fake.baseUrl });
const hooks = await webhookReceiver();
t.teardown(async () => { await live.close(); await fake.close(); await hooks.close(); });
const base = live.srv.baseUrl;

const dispatch = async (to: string, extra: Record<string, unknown> = {}) => {
  const d = await api(base, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default', webhook_url: hooks.url, ...extra } });
  if (d.status !== 201) throw new Error(`dispatch ${d.status} ${JSON.stringify(d.body)}`);
  return d.body.id as string;
};
const ended = (id: string, ms = 30_000) => waitFor(`call ${id} to end`, async () => {
  const c = await callOf(base, id);
  return ENDED.includes(c.status) ? c : undefined;
}, ms);

t.test('integrations report plivo live', async (t) => {
  const r = await api(base, 'GET', '/integrations', { token: await login(base) });
  t.equal(r.status, 200);
  t.match(JSON.stringify(r.body), /"plivo"/);
});

t.test('a call end to end: REST, callbacks, stream, turns, hang-up, call.completed', async (t) => {
  const id = await dispatch('+919812345678');
  const call = await waitFor('the call at the fake', () => fake.calls.find((c) => String(c.body.answer_url).includes(id)));
  t.match(call.body, { from: '918031234567', to: '919812345678', answer_method: 'POST', ring_timeout: 5, machine_detection: 'true' });
  t.equal(new URL(String(call.body.answer_url)).pathname, '/v1/carriers/plivo/answer');
  await waitFor('the answer XML', () => call.answerXml);
  t.match(call.answerXml, /<Stream bidirectional="true" keepCallAlive="true" audioTrack="inbound" contentType="audio\/x-mulaw;rate=8000" extraHeaders="callid=[0-9a-f]+,token=[0-9a-f]+">ws:\/\/127\.0\.0\.1:\d+\/v1\/media\/plivo<\/Stream>/);
  // the agent speaks (disclosure, opening), the callee answers after the corpus audio, the agent answers that
  const running = await waitFor('a caller turn answered', async () => {
    const c = await callOf(base, id);
    return c.status === 'in_progress' && call.playedEchoed.length > 3 && (await messages(id)).filter((m) => m.role === 'caller').length ? c : undefined;
  }, 40_000);
  t.equal(running.status, 'in_progress');
  const row = await live.srv.services.db.query<{ carrier_call_id: string }>('SELECT carrier_call_id FROM calls WHERE id = $1', [id]);
  t.equal(row.rows[0].carrier_call_id, call.callUuid, 'the CallUUID is the call\'s carrier id');
  t.ok(call.played >= 8000, `agent audio played to the callee (${call.played} bytes)`);
  t.same([...call.formats], ['audio/x-mulaw;8000'], 'one content type and rate for every playAudio');
  t.ok(call.playedEchoed.every((n) => call.checkpointsSent.includes(n)), 'every playedStream names a checkpoint we sent');
  const agentSaid = await waitFor('the agent answering the caller', async () => {
    const m = await messages(id);
    const i = m.findIndex((x) => x.role === 'caller');
    return i >= 0 && m.slice(i + 1).some((x) => x.role === 'agent') ? m : undefined;
  }, 20_000);
  t.match(agentSaid.find((m) => m.role === 'caller')?.text, /yes i am interested/i);
  // the callee talks over the agent's answer: clearAudio, clearedAudio, the reply cut where the callee stopped hearing it
  await waitFor('the barge-in', () => call.clears > 0, 20_000);
  await waitFor('the interruption recorded', async () => (await messages(id)).some((m) => m.role === 'caller' && /not what i asked/i.test(m.text)), 20_000);
  await quiet(() => call.played);
  const h = await api(base, 'POST', `/calls/${id}/hangup`, auth);
  t.equal(h.status, 200);
  const done = await ended(id);
  t.equal(done.status, 'completed');
  t.equal(done.ended_reason, 'hangup_api');
  t.equal(call.hungUpBy, 'api', 'hung up with DELETE Call/{uuid}/');
  t.ok(fake.restLog.some((r) => r.method === 'DELETE' && r.path.endsWith(`/Call/${call.callUuid}/`) && r.status === 204));
  t.ok(done.metrics.frames_in > 100, `caller frames in (${done.metrics.frames_in})`);
  t.ok(done.metrics.turn_count >= 1, `turns (${done.metrics.turn_count})`);
  t.ok(done.metrics.interruptions_handled >= 1, `interruptions (${done.metrics.interruptions_handled})`);
  const said = await messages(id);
  t.ok(said.some((m) => m.role === 'agent' && m.text.endsWith('…')), 'the agent\'s answer kept only up to where it was cut');
  t.same(done.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'ringing', 'in_progress', 'completed']);
  const hook = await waitFor('call.completed', () => hooks.bodies.find((b) => b.includes(id)));
  t.match(JSON.parse(hook), { event: 'call.completed', call_id: id, status: 'completed' });
  await waitFor('the hangup callback', () => call.callbacks.find((c) => c.hook === 'hangup_url'));
  t.ok(call.callbacks.every((c) => c.status === 200), 'every signed callback accepted');
});

/** Waits until the agent has said all it had to say (no new audio for 1.5 s). */
async function quiet(played: () => number): Promise<void> {
  let last = -1; let since = Date.now();
  await waitFor('the agent to finish speaking', () => {
    if (played() !== last) { last = played(); since = Date.now(); }
    return Date.now() - since > 1500;
  });
}

async function messages(id: string): Promise<Array<{ role: string; text: string }>> {
  const r = await live.srv.services.db.query<{ role: string; text: string }>(
    'SELECT m.role, m.text FROM conversation_messages m JOIN calls c ON c.conversation_id = m.conversation_id WHERE c.id = $1 ORDER BY m.id', [id]);
  return r.rows;
}

t.test('the caller hangs up: the stream closes and the call completes', async (t) => {
  const id = await dispatch('+919812345600');
  const call = await waitFor('the stream', () => fake.calls.find((c) => String(c.body.answer_url).includes(id) && c.ws?.readyState === 1 ? c : undefined));
  await waitFor('agent audio', () => call.played > 0);
  await fake.callerHangup(call);
  const done = await ended(id);
  t.equal(done.status, 'completed');
  t.match(done.ended_reason, /caller_hangup|media_closed/);
});

t.test('carrier outcomes keep Plivo\'s reason', async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['+919800000001', 'busy', 'busy', /busy:USER_BUSY/],
    ['+919800000002', 'no_answer', 'no_answer', /no-answer:NO_ANSWER/],
    ['+919800000003', 'failed', 'carrier_failed', /rejected \(400\): invalid destination number/],
    ['+919800000005', 'failed', 'carrier_failed', /carrier_unavailable \(500\)/],
    ['+919800000008', 'failed', 'carrier_failed', /rate_limited \(429\): too many requests/],
  ];
  for (const [to, status, reason, carrier] of cases) {
    const c = await ended(await dispatch(to));
    t.equal(c.status, status, to);
    t.equal(c.ended_reason, reason, to);
    t.match(c.carrier_status, carrier, to);
  }
});

t.test('a rate limit is retried after Retry-After and the call goes through', async (t) => {
  const id = await dispatch('+919800000004');
  await waitFor('the stream', () => fake.calls.find((c) => String(c.body.answer_url).includes(id) && c.played > 0));
  t.ok(fake.restLog.some((r) => r.status === 429), 'first refused with 429');
  await api(base, 'POST', `/calls/${id}/hangup`, auth);
  t.equal((await ended(id)).status, 'completed');
});

t.test('a ring nothing answers ends at the ring timeout and is canceled at Plivo', async (t) => {
  const started = Date.now();
  const c = await ended(await dispatch('+919800000006'), 40_000);
  t.equal(c.status, 'no_answer');
  t.ok(Date.now() - started >= 5000, 'not before RING_TIMEOUT_SECONDS');
  t.ok(fake.restLog.some((r) => r.method === 'DELETE' && r.status === 204), 'the ringing call is canceled');
});

t.test('a hang-up before Make Call has answered: the requested call is canceled once its request_uuid comes', async (t) => {
  const id = await dispatch('+919800000009');
  const call = await waitFor('the call requested at the fake', () => fake.calls.find((c) => String(c.body.answer_url).includes(id)));
  await api(base, 'POST', `/calls/${id}/hangup`, auth);
  await waitFor('the request canceled at Plivo', () => fake.restLog.find((r) => r.method === 'DELETE' && r.path.endsWith(`/Request/${call.requestUuid}/`)), 10_000);
  t.equal(call.hungUpBy, 'canceled');
  t.equal((await ended(id)).status, 'canceled');
});

t.test('callbacks without a valid V3 signature are refused with 403', async (t) => {
  const url = `${base}/carriers/plivo/hangup?call_id=call_000000000000000000000000`;
  const forged = await fake.post(url, { CallUUID: 'x', CallStatus: 'completed' }, true);
  t.equal(forged.status, 403);
  t.match(JSON.parse(forged.body), { code: 'forbidden' });
  const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallStatus=completed' });
  t.equal(unsigned.status, 403);
  const tampered = await fake.post(`${base}/carriers/plivo/answer?call_id=call_000000000000000000000000`, { CallUUID: 'y' });
  t.equal(tampered.status, 200, 'a signed answer for an unknown call is answered with a hang-up');
  t.match(tampered.body, /<Hangup\/>/);
});

t.test('a stream without the call\'s capability is closed with 1008', async (t) => {
  const { default: WebSocket } = await import('ws');
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/media/plivo`);
  const code = await new Promise<number>((resolve) => {
    ws.on('open', () => ws.send(JSON.stringify({ event: 'start', sequenceNumber: 1, start: { callId: 'c', streamId: 's', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } },
      extra_headers: 'callid=63616c6c5f78;token=00' })));
    ws.on('close', (c) => resolve(c));
    ws.on('error', () => {});
  });
  t.equal(code, 1008);
});

t.test('transfer: aleg_url dials the number and our hang-up leaves the bridge alone', async (t) => {
  const id = await dispatch('+919812345611');
  const call = await waitFor('agent audio', () => fake.calls.find((c) => String(c.body.answer_url).includes(id) && c.played > 0 ? c : undefined));
  const r = await api(base, 'POST', `/calls/${id}/transfer`, { ...auth, body: { target: '+14155550199' } });
  t.equal(r.status, 200);
  t.equal(r.body.live, true);
  await waitFor('the transfer XML', () => call.transferXml);
  t.match(call.transferXml, /<Dial><Number>14155550199<\/Number><\/Dial>/);
  const done = await ended(id);
  t.equal(done.status, 'completed');
  t.equal(done.ended_reason, 'transferred');
  t.notOk(fake.restLog.some((x) => x.method === 'DELETE' && x.path.includes(call.callUuid)), 'no DELETE of a transferred call');
});

t.test('warm transfer: the human hears the summary, the caller holds in the room until then', async (t) => {
  const id = await dispatch('+919812345612');
  const call = await waitFor('agent audio', () => fake.calls.find((c) => String(c.body.answer_url).includes(id) && c.played > 0 ? c : undefined));
  const summary = 'Meera wants a 3BHK in Baner, budget 1.2 crore; visit on Saturday.';
  const r = await api(base, 'POST', `/calls/${id}/transfer`, { ...auth, body: { target: '+919812300099', mode: 'warm', summary } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.mode, 'warm');
  const done = await ended(id);
  t.match(done, { ended_reason: 'transferred', transfer: { target: '+919812300099', mode: 'warm' } });
  const leg = await waitFor('the human\'s call', () => fake.calls.find((c) => c.body.to === '919812300099'));
  t.match(leg.body, { from: '918031234567', answer_method: 'POST', hangup_method: 'POST' });
  t.equal(new URL(String(leg.body.answer_url)).pathname, '/v1/carriers/plivo/whisper');
  await waitFor('the human in the room', () => leg.conference);
  t.same(leg.heard, [summary], 'the human heard the summary first');
  t.equal(call.conference, `transfer-${id}`, 'the caller is in the call\'s room');
  t.equal(leg.conference, call.conference);
  t.equal(call.holdAudio, 'background music', 'the caller heard Plivo\'s music while the room waited');
  const at = (what: string) => fake.events.findIndex((e) => e.startsWith(what));
  t.ok(at(`${call.callUuid} held`) >= 0 && at(`${call.callUuid} held`) < at(`${leg.callUuid} heard`), 'held before the summary was said');
  t.ok(at(`${leg.callUuid} heard`) < at(`${call.callUuid} connected`), 'connected after it');
  t.notOk(fake.restLog.some((x) => x.method === 'DELETE' && x.path.includes(call.callUuid)), 'no DELETE of the caller');
  await fake.callerHangup(call); // the caller leaves: the room ends, and the human's call with it
  await waitFor('the human\'s call to end', () => leg.ended);
});

t.test('warm transfer nobody answers: the waiting caller is told and let go', async (t) => {
  const id = await dispatch('+919812345613');
  const call = await waitFor('agent audio', () => fake.calls.find((c) => String(c.body.answer_url).includes(id) && c.played > 0 ? c : undefined));
  const r = await api(base, 'POST', `/calls/${id}/transfer`, { ...auth, body: { target: '+919800000010', mode: 'warm' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(await ended(id), { ended_reason: 'transferred', transfer: { target: '+919800000010', mode: 'warm' } });
  await waitFor('the caller let go', () => call.ended);
  t.match(call.heard.at(-1), /^Sorry, nobody could take your call/);
  const leg = fake.calls.find((c) => c.body.to === '919800000010')!;
  t.same(leg.heard, [], 'nothing said to nobody');
  t.equal(leg.callbacks.find((x) => x.hook === 'hangup_url')?.status, 200);
});

t.test('answering-machine detection: Machine=true reaches the call, which ends as voicemail', async (t) => {
  const id = await dispatch('+919800000007');
  const call = await waitFor('the machine callback', () => fake.calls.find((c) => String(c.body.answer_url).includes(id)
    && c.callbacks.some((x) => x.hook === 'machine_detection_url') ? c : undefined));
  t.equal(call.body.machine_detection_method, 'POST');
  const done = await ended(id, 60_000);
  t.equal(done.status, 'completed');
  t.equal(done.ended_reason, 'voicemail');
});

t.test('a lead calls back: the application\'s answer URL takes it; 9 opts out onto do-not-disturb; tones as sendDTMF', async (t) => {
  const admin = await login(base);
  t.equal((await api(base, 'PUT', '/agents/inb', { token: admin, body: {} })).status, 201);
  t.equal((await api(base, 'PUT', '/agents/inb/keypad', { token: admin, body: { 9: 'opt_out' } })).status, 200);
  t.equal((await api(base, 'PUT', '/inbound-numbers/+918031234567', { token: admin, body: { agent_id: 'inb' } })).status, 201);
  const busy = await fake.ringIn({ from: '+919812399999', to: '+918031234500', answerUrl: `${base}/carriers/plivo/incoming`, hangupUrl: `${base}/carriers/plivo/hangup` });
  t.match(busy.answerXml, /<Hangup reason="busy"\/>/, 'a number nobody routes is turned away busy');
  const call = await fake.ringIn({ from: '+919812399999', to: '+918031234567', answerUrl: `${base}/carriers/plivo/incoming`, hangupUrl: `${base}/carriers/plivo/hangup` });
  t.match(call.answerXml, /<Stream bidirectional="true"[^>]*extraHeaders="callid=[0-9a-f]+,token=[0-9a-f]+">ws:\/\/127\.0\.0\.1:\d+\/v1\/media\/plivo<\/Stream>/);
  await waitFor('the agent to speak', () => call.played > 0);
  const id = (await live.srv.services.db.query<{ id: string }>('SELECT id FROM calls WHERE carrier_call_id = $1', [call.callUuid])).rows[0]?.id;
  t.ok(id, 'the call is stored with the CallUUID');
  t.equal((await api(base, 'POST', `/calls/${id}/tones`, { ...auth, body: { digits: '12#' } })).status, 202);
  await waitFor('the tones at Plivo', () => call.dtmfSent.includes('12#'));
  fake.sendDtmf(call, '9');
  const done = await ended(id);
  t.match(done, { status: 'completed', ended_reason: 'opted_out', direction: 'inbound', from: '+919812399999', to: '+918031234567' });
  const dnd = await api(base, 'GET', `/dnd/check?phone=${encodeURIComponent('+919812399999')}`, auth);
  t.match(dnd.body, { dnd: true }, 'the caller is on the do-not-disturb list');
  const events = await api(base, 'GET', `/calls/${id}/events?limit=500`, auth);
  t.ok(events.body.data.some((e: { type: string; speaker?: string; text?: string }) => e.type === 'transcript' && e.speaker === 'agent' && /won't be called again/.test(e.text ?? '')),
    'the caller heard that the opt-out was honoured');
  await waitFor('the hangup callback, matched by CallUUID', () => call.callbacks.find((c) => c.hook === 'hangup_url'));
});

/**
 * Live mode with CARRIER=twilio against the fake Twilio, end to end: dispatch -> REST Calls create -> signed
 * status callbacks -> signed media socket streaming corpus audio in real time -> turns -> hang-up -> call.completed
 * webhook; unanswered outcomes and Twilio errors; forged callbacks and upgrades refused; a machine answer that gets
 * the agent's voicemail message after the beep; transfers to the agent's and the tenant's human numbers.
 * The service is reached through PUBLIC_BASE_URL=https://voice.example.test/v1, which the fake maps to 127.0.0.1
 * (a tunnel, as ngrok would be), so every signature is over the public https:// and wss:// URLs.
 * Speech: the STT and TTS slots are served by an adapter server (ADAPTER_STT_URL/ADAPTER_TTS_URL): a transcriber
 * that answers each turn with the corpus's ground-truth text, and the simulator's synthesis.
 */
import t from 'tap';
import twilio from 'twilio';
import WebSocket from 'ws';
import { Webhook } from 'standardwebhooks';
import { SimStt, SimTts, startAdapterServer, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../src/adapters/index.js';
import { mulawDecode } from '../../src/audio/index.js';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { corpusMulaw, FakeTwilio } from '../fakes/twilio.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';

const SID = 'AC' + '2'.repeat(32);
const TOKEN = 'e2e-auth-token-fedcba9876543210';
const PUBLIC = 'https://voice.example.test/v1';
const CORPUS = '/work/shared/corpus/d02_white_snr20.wav';
const CORPUS_TURNS = ["Hi, I'm calling about my internet bill. It went up by twenty dollars this month.", 'Can you tell me why?'];

/** Ground truth as the transcript of each caller turn, in order (the corpus is labelled; this is no recogniser). */
class CorpusStt implements SpeechToTextAdapter {
  open(): SttStream {
    let next = 0;
    let lastMs = 0;
    return {
      write: (_pcm, atMs) => { lastMs = atMs; },
      finalize: async () => ({ text: CORPUS_TURNS[next++] ?? '', final: true, startMs: 0, endMs: lastMs, confidence: 1 }),
      onResult: () => {},
      close: () => {},
    };
  }
  async transcribe(): Promise<TranscriptResult> { return { text: '', final: true, startMs: 0, endMs: 0 }; }
}

// numbers of the fictional +1 NXX 555-01xx range: no calling-hours gate applies to them (src/leads/phone.ts)
const fake = await new FakeTwilio(SID, TOKEN).start();
t.teardown(() => fake.close());
const speech = await startAdapterServer({ stt: new CorpusStt(), tts: new SimTts() });
t.teardown(() => speech.close());
const srv = await startTestServer({ env: {
  SERVICE_MODE: 'live', CARRIER: 'twilio', TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_FROM_NUMBER: '+14155550100',
  TWILIO_API_BASE_URL: fake.baseUrl, PUBLIC_BASE_URL: PUBLIC, HUMAN_TRANSFER_NUMBER: '+14155550188', RING_TIMEOUT_SECONDS: '10',
  ADAPTER_STT_URL: speech.address, ADAPTER_TTS_URL: speech.address, WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50',
} });
t.teardown(() => srv.close());
/** where the service really listens (srv.baseUrl is the public address) */
const LOCAL = `http://127.0.0.1:${srv.port}/v1`;
fake.tunnel = (u) => u.replace(PUBLIC, LOCAL).replace(PUBLIC.replace('https', 'wss'), LOCAL.replace('http', 'ws'));

const { received, url: hookUrl } = await webhookReceiver(t);
const auth = { headers: { 'x-api-key': API_KEY } };
const admin = await login(LOCAL);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, f: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
/** resolves once none of our audio has played for `ms` (the agent is done talking), at most 40 s */
async function quiet(fc: { playedBytes: number }, ms: number): Promise<void> {
  const end = Date.now() + 40_000;
  let last = -1;
  let since = Date.now();
  while (Date.now() < end && (fc.playedBytes !== last || Date.now() - since < ms)) {
    if (fc.playedBytes !== last) { last = fc.playedBytes; since = Date.now(); }
    await sleep(100);
  }
}
const getCall = async (id: string) => (await api(LOCAL, 'GET', `/calls/${id}`, auth)).body;
const ended = (id: string) => until(`call ${id} to end`, async () => {
  const c = await getCall(id);
  return ['completed', 'no_answer', 'busy', 'failed', 'canceled'].includes(c.status) ? c : undefined;
}, 60_000);
const dispatch = async (body: Record<string, unknown>) => {
  const d = await api(LOCAL, 'POST', '/calls/dispatch', { ...auth, body });
  if (d.status !== 201) throw new Error(`dispatch: ${d.status} ${JSON.stringify(d.body)}`);
  return d.body.id as string;
};
/** what a listener hears of our audio: the played mu-law, transcribed by the simulator's recogniser */
const heard = async (chunks: Uint8Array[]) => (await new SimStt().transcribe(mulawDecode(Buffer.concat(chunks)), { language: 'en-US', sampleRateHz: 8000 })).text;

t.test('the carrier slot reports twilio live', async (t) => {
  const r = await api(LOCAL, 'GET', '/integrations', { token: admin });
  t.equal(r.status, 200);
  const slots = (Array.isArray(r.body) ? r.body : r.body.data ?? r.body.slots) as Array<{ slot: string }>;
  t.match(slots.find((s) => s.slot === 'carrier'), { provider: 'twilio', mode: 'live', missing: [] });
});

t.test('dispatch -> REST -> callbacks -> media socket with corpus audio -> turns -> hang-up -> call.completed', async (t) => {
  // the callee listens to the disclosure and the first question, then talks (the corpus, 10 s, real time)
  fake.plan('+14155550123', { answer: 'human', ringMs: 300, audio: corpusMulaw(CORPUS), speakWhenQuietMs: 700 });
  const id = await dispatch({ to: '+14155550123', agent_id: 'default', webhook_url: hookUrl });
  const fc = await until('the call at the fake', () => fake.callTo('+14155550123'));
  t.same(fc.parameters.call_id, id, 'the call id travels as a <Parameter>');
  t.match(fc.parameters.stream_token, /^\d+\.[\w-]+\.[\w-]+$/, 'and the single-use media capability');
  t.equal(fc.streamUrl, 'wss://voice.example.test/v1/media/twilio');
  await until('the media stream', () => fc.streamSid);
  await until('the callee to talk', () => fc.speaking, 40_000);
  await sleep(10_500); // the corpus; then the line stays open (silence) while the agent answers
  await quiet(fc, 2500);
  const h = await api(LOCAL, 'POST', `/calls/${id}/hangup`, auth);
  t.ok([200, 202].includes(h.status), `hang-up accepted (${h.status})`);
  const call = await ended(id);
  t.equal(call.status, 'completed');
  t.ok(call.metrics.turn_count >= 1, `turns answered (${call.metrics.turn_count})`);
  t.ok(call.metrics.frames_in >= 500, `caller frames in (${call.metrics.frames_in})`);
  t.same(call.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'ringing', 'in_progress', 'completed']);
  t.match(call.carrier_status, /^(in-progress|answered_by human)$/);
  t.ok(fake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status') === 'completed'), 'hung up over REST');
  await fc.ended;
  t.same(fc.callbacks.filter((c) => c.hook === 'status').map((c) => [c.value, c.httpStatus]),
    [['initiated', 204], ['ringing', 204], ['in-progress', 204], ['completed', 204]], 'every callback verified and acknowledged');
  t.same(fc.callbacks.find((c) => c.hook === 'amd'), { hook: 'amd', value: 'human', httpStatus: 204 });
  t.same(fc.protocolErrors, [], 'every message we sent was valid Media Streams');
  t.ok(fc.marksEchoed.length > 0, 'marks sent and echoed');
  t.match(await heard(fc.played), /automated assistant/i, 'the caller heard the disclosure');
  const hook = await until('the webhook', () => received.find((r) => r.body.includes(id)));
  const secret = (await api(LOCAL, 'GET', '/webhooks/secret', { token: admin })).body.secret;
  const payload = new Webhook(secret).verify(hook.body, hook.headers) as Record<string, unknown>;
  t.match(payload, { event: 'call.completed', call_id: id, status: 'completed' });
});

t.test('unanswered and refused calls end with their outcome and the carrier\'s words', async (t) => {
  fake.plan('+14155550102', { answer: 'busy', ringMs: 100 });
  const busy = await ended(await dispatch({ to: '+14155550102' }));
  t.match(busy, { status: 'busy', ended_reason: 'busy', carrier_status: 'busy (sip 486)' });
  fake.plan('+14155550103', { answer: 'no-answer', ringMs: 100 });
  t.match(await ended(await dispatch({ to: '+14155550103' })), { status: 'no_answer', carrier_status: 'no-answer' });
  fake.failNext({ status: 400, code: 21211, message: "The 'To' number +14155550104 is not a valid phone number." });
  const invalid = await ended(await dispatch({ to: '+14155550104' }));
  t.match(invalid, { status: 'failed', ended_reason: 'carrier_failed', carrier_status: /^error 21211 invalid_number: / });
  fake.failNext({ status: 429, code: 20429, message: 'Too Many Requests', retryAfterSeconds: 0 });
  fake.plan('+14155550105', { answer: 'busy', ringMs: 50 });
  t.match(await ended(await dispatch({ to: '+14155550105' })), { status: 'busy' }, 'a rate limit is retried');
  fake.plan('+14155550106', { answer: 'human', ringMs: 20_000 });
  const ringing = await dispatch({ to: '+14155550106' });
  await until('ringing', async () => (await getCall(ringing)).status === 'ringing' || undefined);
  await api(LOCAL, 'POST', `/calls/${ringing}/hangup`, auth);
  t.match(await ended(ringing), { status: 'canceled' }, 'hung up while ringing');
  const fc = fake.callTo('+14155550106')!;
  await fc.ended;
  t.equal(fc.status, 'canceled', 'canceled at Twilio (Status=canceled)');
});

t.test('forged callbacks and media upgrades are refused with 403', async (t) => {
  const url = `${PUBLIC}/carriers/twilio/status?call_id=call_x`;
  const params = { CallSid: 'CA' + '0'.repeat(32), CallStatus: 'completed' };
  const post = (sig?: string) => fetch(fake.tunnel(url), { method: 'POST', body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(sig ? { 'x-twilio-signature': sig } : {}) } });
  const none = await post();
  t.equal(none.status, 403);
  t.match(await none.json(), { code: 'forbidden' });
  t.equal((await post(twilio.getExpectedTwilioSignature('not-the-token', url, params))).status, 403, 'another token');
  t.equal((await post(twilio.getExpectedTwilioSignature(TOKEN, url, { ...params, CallStatus: 'busy' }))).status, 403, 'altered body');
  t.equal((await post(twilio.getExpectedTwilioSignature(TOKEN, url, params))).status, 204, 'signed: believed (an unknown call, acknowledged)');
  const wss = `${PUBLIC.replace('https', 'wss')}/media/twilio`;
  const upgrade = (sig?: string) => new Promise<number>((resolve) => {
    const ws = new WebSocket(fake.tunnel(wss), { headers: sig ? { 'x-twilio-signature': sig } : {} });
    ws.on('error', () => {});
    ws.once('open', () => { ws.close(); resolve(101); });
    ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
  });
  t.equal(await upgrade(), 403, 'no signature');
  t.equal(await upgrade(twilio.getExpectedTwilioSignature(TOKEN, wss.replace('wss', 'https'), {})), 403, 'signed over https://, not wss://');
  t.equal(await upgrade(twilio.getExpectedTwilioSignature(TOKEN, wss, {})), 101, 'signed wss:// URL');
});

t.test('a machine answers: the agent\'s voicemail message after the beep, then it hangs up', async (t) => {
  const put = await api(LOCAL, 'PUT', '/agents/vm', { token: admin, body: { voicemail: 'leave_message',
    voicemail_message: 'Sorry we missed you. Please call Acme back today.' } });
  t.equal(put.status, 201);
  fake.plan('+14155550131', { answer: 'machine', ringMs: 100, greetingMs: 2500 });
  const id = await dispatch({ to: '+14155550131', agent_id: 'vm' });
  const call = await ended(id);
  const fc = fake.callTo('+14155550131')!;
  t.match(call, { status: 'completed', ended_reason: 'voicemail', carrier_status: 'answered_by machine_end_beep' });
  t.same(fc.callbacks.find((c) => c.hook === 'amd'), { hook: 'amd', value: 'machine_end_beep', httpStatus: 204 });
  // what played after the beep: the stream started, 2.5 s of greeting, then the message
  const afterBeep = Buffer.concat(fc.played).subarray(2400 * 8);
  t.match(await heard([afterBeep]), /please call acme back today/i, 'the message was left');
  t.ok(fake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status') === 'completed'), 'then hung up');
  fake.plan('+14155550132', { answer: 'machine', ringMs: 100, greetingMs: 1500 });
  const hungUp = await ended(await dispatch({ to: '+14155550132', agent_id: 'default' }));
  t.match(hungUp, { status: 'completed', ended_reason: 'voicemail' }, 'hang_up (the default): no message');
});

t.test('transfer: the agent\'s transfer_number, else HUMAN_TRANSFER_NUMBER; the bridged call is left alone', async (t) => {
  await api(LOCAL, 'PUT', '/agents/tr', { token: admin, body: { transfer_number: '+14155550177' } });
  for (const [agent, to, want] of [['tr', '+14155550141', '+14155550177'], ['default', '+14155550142', '+14155550188']]) {
    fake.plan(to, { answer: 'human', ringMs: 100 });
    const id = await dispatch({ to, agent_id: agent });
    // agent audio at the fake means the session is live: a transfer before that would answer live: false
    const fc = await until('the agent to speak', () => (fake.callTo(to)?.playedBytes ? fake.callTo(to) : undefined));
    const r = await api(LOCAL, 'POST', `/calls/${id}/transfer`, { token: admin, body: {} });
    t.equal(r.status, 200, JSON.stringify(r.body));
    t.equal(r.body.live, true);
    const call = await ended(id);
    t.match(call, { status: 'completed', ended_reason: 'transferred' });
    t.equal(fc.dialed, want, `dialed ${want}`);
    t.equal(fc.status, 'in-progress', 'still bridged to the human');
    t.notOk(fake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status')), 'we did not hang it up');
    fake.hangUp(fc.sid);
    await fc.ended;
    t.equal(fc.callbacks.at(-1)?.httpStatus, 204, 'its later completed callback is acknowledged');
  }
});

t.test('warm transfer: the human hears the summary first, the caller holds in the room until then', async (t) => {
  t.equal((await api(LOCAL, 'PUT', '/agents/warm', { token: admin, body: { transfer_number: '+14155550178', transfer_mode: 'warm' } })).status, 201);
  fake.plan('+14155550143', { answer: 'human', ringMs: 100 });
  // a person takes a second or two to pick up; the caller's move (one REST request) is done well before
  fake.plan('+14155550178', { answer: 'human', ringMs: 1500 });
  const id = await dispatch({ to: '+14155550143', agent_id: 'warm', webhook_url: hookUrl });
  const fc = await until('the agent to speak', () => (fake.callTo('+14155550143')?.playedBytes ? fake.callTo('+14155550143') : undefined));
  const r = await api(LOCAL, 'POST', `/calls/${id}/transfer`, { token: admin, body: {} });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body, { live: true, mode: 'warm' });
  const call = await ended(id);
  t.match(call, { status: 'completed', ended_reason: 'transferred', transfer: { target: '+14155550178', mode: 'warm' } });
  const leg = fake.callTo('+14155550178')!;
  t.equal(leg.from, '+14155550100', 'the human sees our number');
  t.match(leg.form.get('StatusCallback'), `${PUBLIC}/carriers/twilio/transfer?call_id=${id}`);
  await until('the human to join the room', () => leg.conference);
  t.match(leg.heard[0], /^Call from the voice agent\. .+/, 'the human heard the call\'s summary');
  t.equal(fc.conference, `transfer-${id}`, 'the caller is in the call\'s room');
  t.equal(leg.conference, fc.conference, 'and the human joined it');
  t.equal(fc.holdAudio, 'twilio default hold music', 'the caller heard hold music');
  const at = (what: string) => fake.events.findIndex((e) => e.startsWith(what));
  t.ok(at(`${fc.sid} held`) >= 0 && at(`${fc.sid} held`) < at(`${leg.sid} heard`), 'the caller was on hold before the human heard the summary');
  t.ok(at(`${leg.sid} heard`) < at(`${fc.sid} connected`), 'the two were connected after the summary');
  t.same(fc.protocolErrors, [], 'TwiML Twilio accepts');
  t.notOk(fake.requests.some((q) => q.path.endsWith(`/Calls/${fc.sid}.json`) && q.form.get('Status')), 'we did not hang the caller up');
  const hook = await until('the webhook', () => received.map((x) => JSON.parse(x.body)).find((b) => b.call_id === id));
  t.same(hook.transfer, { target: '+14155550178', mode: 'warm' });
  fake.hangUp(fc.sid); // the caller leaves: the room ends, and the human's call with it
  await leg.ended;
  t.equal(leg.status, 'completed');
  t.equal(leg.callbacks.at(-1)?.httpStatus, 204, 'the human\'s completed callback is acknowledged');
});

t.test('warm transfer nobody answers: the waiting caller is told and let go; cold stays available', async (t) => {
  fake.plan('+14155550144', { answer: 'human', ringMs: 100 });
  fake.plan('+14155550179', { answer: 'no-answer', ringMs: 200 });
  const id = await dispatch({ to: '+14155550144', agent_id: 'default' });
  const fc = await until('the agent to speak', () => (fake.callTo('+14155550144')?.playedBytes ? fake.callTo('+14155550144') : undefined));
  const r = await api(LOCAL, 'POST', `/calls/${id}/transfer`, { token: admin, body: { target: '+14155550179', mode: 'warm', summary: 'Ravi wants a plot near Nashik.' } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(await ended(id), { ended_reason: 'transferred', transfer: { target: '+14155550179', mode: 'warm' } });
  await fc.ended;
  t.match(fc.heard.at(-1), /^Sorry, nobody could take your call/, 'the caller heard why');
  t.equal(fc.status, 'completed');
  const leg = fake.callTo('+14155550179')!;
  t.equal(leg.status, 'no-answer');
  t.same(leg.heard, [], 'the summary is said only to a human who answered');
  t.equal(leg.callbacks.at(-1)?.httpStatus, 204);

  fake.plan('+14155550145', { answer: 'human', ringMs: 100 });
  const id2 = await dispatch({ to: '+14155550145', agent_id: 'warm' });
  const fc2 = await until('the agent to speak', () => (fake.callTo('+14155550145')?.playedBytes ? fake.callTo('+14155550145') : undefined));
  t.equal((await api(LOCAL, 'POST', `/calls/${id2}/transfer`, { token: admin, body: { mode: 'cold' } })).body.mode, 'cold');
  t.match(await ended(id2), { transfer: { target: '+14155550178', mode: 'cold' } });
  t.equal(fc2.dialed, '+14155550178', 'a cold <Dial>, no room');
  t.equal(fc2.conference, undefined);
  fake.hangUp(fc2.sid);
});

t.test('a lead calls back: the number\'s Voice URL takes it; typed keys are input, 0 is a person; the agent\'s tones', async (t) => {
  t.equal((await api(LOCAL, 'PUT', '/agents/inb', { token: admin, body: {} })).status, 201);
  t.equal((await api(LOCAL, 'PUT', '/agents/inb/keypad', { token: admin, body: { 0: 'operator' } })).status, 200);
  t.equal((await api(LOCAL, 'PUT', '/inbound-numbers/+14155550150', { token: admin, body: { agent_id: 'inb' } })).status, 201);
  const refused = await fake.ringIn({ from: '+14155550160', to: '+14155550151', voiceUrl: `${PUBLIC}/carriers/twilio/voice` });
  t.match(refused.voiceAnswer, /<Reject reason="busy"\/>/, 'a number nobody routes is turned away busy');
  const fc = await fake.ringIn({ from: '+14155550160', to: '+14155550150', voiceUrl: `${PUBLIC}/carriers/twilio/voice`, statusUrl: `${PUBLIC}/carriers/twilio/status` });
  t.match(fc.voiceAnswer, /<Connect><Stream url="wss:\/\/voice\.example\.test\/v1\/media\/twilio"><Parameter name="call_id" value="call_[0-9a-f]{24}"\/>/);
  const id = fc.parameters.call_id;
  await until('the agent to speak', () => (fake.callTo('+14155550150')?.playedBytes ? true : undefined));
  for (const d of ['4', '2', '#']) fake.sendDtmf(fc.sid, d);
  await until('the keys as the caller\'s turn', async () => ((await api(LOCAL, 'GET', `/calls/${id}/events`, auth)).body.data as Array<{ type: string; speaker?: string; text?: string }>)
    .some((i) => i.type === 'transcript' && i.speaker === 'caller' && i.text === '[keypad] 42') || undefined);
  const live = fake.callTo('+14155550150')!;
  const before = live.playedBytes;
  t.equal((await api(LOCAL, 'POST', `/calls/${id}/tones`, { ...auth, body: { digits: '1' } })).status, 202);
  await until('the tones played', () => (live.playedBytes >= before + 1600 ? true : undefined));
  await quiet(live, 1500);
  const { detectDigit } = await import('../../src/carriers/dtmf.js');
  const heardPcm = mulawDecode(Buffer.concat(live.played));
  let pressed = false;
  for (let o = 0; o + 640 <= heardPcm.length && !pressed; o += 160) pressed = detectDigit(heardPcm.subarray(o, o + 640)) === '1';
  t.ok(pressed, 'the caller heard the 1 key\'s tone');
  fake.sendDtmf(fc.sid, '0');
  const call = await ended(id);
  t.match(call, { status: 'completed', ended_reason: 'transferred', direction: 'inbound', from: '+14155550160', to: '+14155550150', human_escalation: true });
  t.same(call.transitions.map((x: { to: string }) => x.to), ['ringing', 'in_progress', 'completed']);
  t.equal(live.dialed, '+14155550188', '0 reached a person: HUMAN_TRANSFER_NUMBER');
  fake.hangUp(live.sid);
  await live.ended;
  t.equal(live.callbacks.at(-1)?.httpStatus, 204, 'the number\'s status callback, matched by CallSid');
});

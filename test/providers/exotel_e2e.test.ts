/**
 * CARRIER=exotel in live mode against the local Exotel: dispatch -> Calls/connect into the flow -> answered
 * callback -> the Voicebot applet fetches our stream URL -> 16-bit PCM corpus audio and a spoken answer in real
 * time -> agent turns in whole 320-byte blocks, marks echoed -> hang-up (we close the socket, the flow's Passthru
 * hangs up) -> terminal callback -> call.completed. Then outcomes, a rate limit, the ring timeout, the refusals, a
 * transfer through the flow.
 */
import t from 'tap';
import WebSocket from 'ws';
import { api } from '../helpers/server.js';
import { FakeExotel, type ExotelBehaviour } from '../fakes/exotel.js';
import { auth, callOf, calleeAnswer, calleeGreeting, ENDED, startLiveService, waitFor, webhookReceiver } from './live_env.js';

const behaviours: Record<string, ExotelBehaviour> = {
  '+919800000001': 'busy', '+919800000002': 'no-answer', '+919800000003': 'invalid', '+919800000004': 'ratelimit-once', '+919800000006': 'silent',
};
let base = '';
/** the deployment secret the flow's applet URLs carry (EXOTEL_HOOK_SECRET) */
const HOOK_SECRET = 'exotel-flow-secret-0123456789';
const fake = await new FakeExotel({ sid: 'acme1', apiKey: 'exo-key', apiToken: 'exo-token', appId: '424242',
  appletUrl: () => `${base}/carriers/exotel/stream?secret=${HOOK_SECRET}`, passthruUrl: () => `${base}/carriers/exotel/next?secret=${HOOK_SECRET}`,
  connectUrl: () => `${base}/carriers/exotel/dial?secret=${HOOK_SECRET}`, playbackUrl: () => `${base}/carriers/exotel/whisper?secret=${HOOK_SECRET}`,
  audio: calleeGreeting('d03_pink_snr10.wav'), reply: calleeAnswer(), interrupt: calleeAnswer('sorry that is not what I asked'), behaviour: (to) => behaviours[to] ?? 'answer' }).start();
const live = await startLiveService({ CARRIER: 'exotel', EXOTEL_ACCOUNT_SID: 'acme1', EXOTEL_API_KEY: 'exo-key', EXOTEL_API_TOKEN: 'exo-token',
  EXOTEL_CALLER_ID: '08047491899', EXOTEL_APP_ID: '424242', EXOTEL_API_BASE_URL: fake.baseUrl, EXOTEL_HOOK_SECRET: HOOK_SECRET });
base = live.srv.baseUrl;
const hooks = await webhookReceiver();
t.teardown(async () => { await live.close(); await fake.close(); await hooks.close(); });

const dispatch = async (to: string) => {
  const d = await api(base, 'POST', '/calls/dispatch', { ...auth, body: { to, agent_id: 'default', webhook_url: hooks.url } });
  if (d.status !== 201) throw new Error(`dispatch ${d.status} ${JSON.stringify(d.body)}`);
  return d.body.id as string;
};
const ended = (id: string, ms = 30_000) => waitFor(`call ${id} to end`, async () => {
  const c = await callOf(base, id);
  return ENDED.includes(c.status) ? c : undefined;
}, ms);
const callAt = (id: string, also: (c: FakeExotel['calls'][number]) => boolean = () => true) =>
  waitFor('the call at the fake', () => fake.calls.find((c) => c.form.get('CustomField') === id && also(c)));
async function messages(id: string): Promise<Array<{ role: string; text: string }>> {
  const r = await live.srv.services.db.query<{ role: string; text: string }>(
    'SELECT m.role, m.text FROM conversation_messages m JOIN calls c ON c.conversation_id = m.conversation_id WHERE c.id = $1 ORDER BY m.id', [id]);
  return r.rows;
}

t.test('a call end to end: connect, applet URL, PCM stream, turns, hang-up, call.completed', async (t) => {
  const id = await dispatch('+919812345678');
  const call = await callAt(id);
  t.equal(call.form.get('From'), '+919812345678');
  t.equal(call.form.get('CallerId'), '08047491899');
  t.equal(call.form.get('TimeOut'), '5');
  t.match(call.form.get('StatusCallback'), /\/v1\/carriers\/exotel\/status\?call_id=call_[0-9a-f]+&key=/);
  await waitFor('the stream URL', () => call.streamUrl);
  t.match(call.streamUrl, /^ws:\/\/127\.0\.0\.1:\d+\/v1\/media\/exotel\?call_id=call_[0-9a-f]{24}&token=/);
  const said = await waitFor('the agent answering the caller', async () => {
    const m = await messages(id);
    const i = m.findIndex((x) => x.role === 'caller');
    return i >= 0 && m.slice(i + 1).some((x) => x.role === 'agent') ? m : undefined;
  }, 45_000);
  t.match(said.find((m) => m.role === 'caller')?.text, /yes i am interested/i);
  // the callee talks over the agent's answer: clear, pending marks echoed, the reply cut where it stopped being heard
  await waitFor('the barge-in', () => call.clears > 0, 20_000);
  await waitFor('the interruption recorded', async () => (await messages(id)).some((m) => m.role === 'caller' && /not what i asked/i.test(m.text)), 20_000);
  let last = -1; let since = Date.now();
  await waitFor('the agent to finish speaking', () => {
    if (call.played !== last) { last = call.played; since = Date.now(); }
    return Date.now() - since > 1500;
  });
  t.ok(call.played >= 16000, `agent audio played (${call.played} bytes)`);
  t.same(call.badChunks, [], `every chunk whole 320-byte blocks of >= 100 ms (${call.chunks.length} chunks)`);
  t.ok(call.chunks.every((n) => n <= 100 * 1024), 'none over 100 KB');
  t.ok(call.marksEchoed.length > 3 && call.marksEchoed.every((n) => call.marksSent.includes(n)), 'marks echoed');
  const row = await live.srv.services.db.query<{ carrier_call_id: string }>('SELECT carrier_call_id FROM calls WHERE id = $1', [id]);
  t.equal(row.rows[0].carrier_call_id, call.sid);
  t.equal((await api(base, 'POST', `/calls/${id}/hangup`, auth)).status, 200);
  const done = await ended(id);
  t.equal(done.status, 'completed');
  t.equal(done.ended_reason, 'hangup_api');
  await waitFor('the flow to end', () => call.callbacks.find((c) => c.event === 'terminal:completed'));
  t.equal(call.passthru, 302, 'the Passthru after the Voicebot is told to hang up');
  t.equal(call.ended, 'bot');
  t.ok(done.metrics.turn_count >= 1, `turns (${done.metrics.turn_count})`);
  t.ok(done.metrics.interruptions_handled >= 1, `interruptions (${done.metrics.interruptions_handled})`);
  t.ok((await messages(id)).some((m) => m.role === 'agent' && m.text.endsWith('…')), 'the agent\'s answer kept only up to where it was cut');
  t.ok(done.metrics.frames_in > 100, `caller frames (${done.metrics.frames_in})`);
  t.same(done.transitions.map((x: { to: string }) => x.to), ['queued', 'dialing', 'in_progress', 'completed']);
  const hook = await waitFor('call.completed', () => hooks.bodies.find((b) => b.includes(id)));
  t.match(JSON.parse(hook), { event: 'call.completed', call_id: id, status: 'completed' });
  t.ok(call.callbacks.every((c) => c.status === 200), 'every status callback accepted');
});

t.test('the caller hangs up: stop (callended), the call completes', async (t) => {
  const id = await dispatch('+919812345600');
  const call = await callAt(id, (c) => c.played > 0);
  await fake.callerHangup(call);
  const done = await ended(id);
  t.equal(done.status, 'completed');
  t.equal(done.ended_reason, 'caller_hangup');
});

t.test('outcomes keep Exotel\'s status', async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['+919800000001', 'busy', 'busy', /^busy$/],
    ['+919800000002', 'no_answer', 'no_answer', /^no-answer$/],
    ['+919800000003', 'failed', 'carrier_failed', /rejected \(400\): From is not a valid phone number/],
  ];
  for (const [to, status, reason, carrier] of cases) {
    const c = await ended(await dispatch(to));
    t.equal(c.status, status, to);
    t.equal(c.ended_reason, reason, to);
    t.match(c.carrier_status, carrier, to);
  }
});

t.test('a rate limit is retried and the call goes through', async (t) => {
  const id = await dispatch('+919800000004');
  await callAt(id, (c) => c.played > 0);
  t.ok(fake.restLog.some((r) => r.status === 429));
  await api(base, 'POST', `/calls/${id}/hangup`, auth);
  t.equal((await ended(id)).status, 'completed');
});

t.test('a ring nothing answers ends at the ring timeout', async (t) => {
  const started = Date.now();
  const c = await ended(await dispatch('+919800000006'), 40_000);
  t.equal(c.status, 'no_answer');
  t.equal(c.carrier_status, 'ring_timeout');
  t.ok(Date.now() - started >= 5000);
});

t.test('refusals: a status callback without its key, an unknown CallSid, a stream URL without the capability', async (t) => {
  const status = await fetch(`${base}/carriers/exotel/status?call_id=call_000000000000000000000000&key=forged`, { method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=x&Status=completed' });
  t.equal(status.status, 403);
  t.match(await status.json(), { code: 'forbidden' });
  const stream = await fetch(`${base}/carriers/exotel/stream?CallSid=${'0'.repeat(32)}`);
  t.equal(stream.status, 403);
  const code = (path: string) => new Promise<number>((resolve) => {
    const ws = new WebSocket(path.startsWith('ws') ? path : base.replace(/^http/, 'ws') + path);
    ws.on('error', () => {});
    ws.once('open', () => { ws.close(); resolve(101); });
    ws.once('unexpected-response', (_q, res) => resolve(res.statusCode ?? 0));
  });
  t.equal(await code('/media/exotel'), 403);
  t.equal(await code('/media/exotel?call_id=call_000000000000000000000000&token=1.2.3'), 403);
  const used = fake.calls.find((c) => c.streamUrl)!;
  t.equal(await code(used.streamUrl!), 403, 'a capability is good once');
});

t.test('transfer: the bot leg closes, the Passthru goes on and Connect dials the number', async (t) => {
  const id = await dispatch('+919812345611');
  const call = await callAt(id, (c) => c.played > 0);
  const r = await api(base, 'POST', `/calls/${id}/transfer`, { ...auth, body: { target: '+919876500000' } });
  t.equal(r.status, 200);
  t.equal(r.body.live, true);
  await waitFor('the Connect applet', () => call.dialed);
  t.equal(call.passthru, 200);
  t.same(call.dialed, ['+919876500000']);
  const done = await ended(id);
  t.equal(done.ended_reason, 'transferred');
  t.same(done.transfer, { target: '+919876500000', mode: 'cold' });
  // the flow's applet asks for its playback on every transfer: a cold one says only where the call comes from
  t.equal(await waitFor('the playback', () => call.calleeHeard), 'A call from the voice agent.');
});

t.test('warm transfer: the Connect applet says the summary to the human alone before connecting the caller', async (t) => {
  const id = await dispatch('+919812345612');
  const call = await callAt(id, (c) => c.played > 0);
  const summary = 'Kiran wants a villa in Goa, budget 3 crore.';
  const r = await api(base, 'POST', `/calls/${id}/transfer`, { ...auth, body: { target: '+919876500001', mode: 'warm', summary } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  await waitFor('the Connect applet\'s playback', () => call.calleeHeard);
  t.same(call.dialed, ['+919876500001']);
  t.equal(call.calleeHeard, summary);
  t.equal(call.playbackTo, 'callee', 'said to the human alone: the caller hears the applet\'s ringing');
  t.match(await ended(id), { ended_reason: 'transferred', transfer: { target: '+919876500001', mode: 'warm' } });
  const stranger = await fetch(`${base}/carriers/exotel/whisper?CallSid=${call.sid}`);
  t.equal(stranger.status, 403, 'the summary is not told without the flow\'s secret');
  t.equal(await stranger.text(), '');
});

t.test('the flow\'s hooks without its secret: 403 and nothing more, even for a call of ours waiting for its stream', async (t) => {
  const id = await dispatch('+919800000006'); // the fake places it and then stays silent: the call waits for its stream
  const call = await callAt(id);
  const ask = (query: string, headers: Record<string, string> = {}) => fetch(`${base}/carriers/exotel/stream?${query}`, { headers });
  for (const [what, r] of [
    ['no credentials', await ask(`CallSid=${call.sid}&CustomField=${id}`)],
    ['a wrong secret', await ask(`secret=not-the-secret-at-all&CallSid=${call.sid}`)],
    ['wrong basic-auth credentials', await ask(`CallSid=${call.sid}`, { authorization: `Basic ${Buffer.from('exotel:guess').toString('base64')}` })],
    ['the secret, an unknown call', await ask(`secret=${HOOK_SECRET}&CallSid=${'0'.repeat(32)}`)],
  ] as const) {
    t.equal(r.status, 403, what);
    t.equal(await r.text(), '', `${what}: no body`);
  }
  const dial = await fetch(`${base}/carriers/exotel/dial?CallSid=${call.sid}`);
  t.equal(dial.status, 403, 'the transfer number is not revealed either');
  t.equal(await dial.text(), '');
  const ok = await ask(`CallSid=${call.sid}&CustomField=${id}`, { authorization: `Basic ${Buffer.from(`exotel:${HOOK_SECRET}`).toString('base64')}` });
  t.equal(ok.status, 200, 'basic-auth credentials in the applet URL');
  t.match(await ok.json(), { url: /\/media\/exotel\?call_id=call_[0-9a-f]{24}&token=/ });
  const again = await ask(`secret=${HOOK_SECRET}&CallSid=${call.sid}&CustomField=${id}`);
  t.equal(again.status, 403, 'one stream URL per call');
  await api(base, 'POST', `/calls/${id}/hangup`, auth);
  await ended(id, 40_000);
});

t.test('a lead calls back: the ExoPhone\'s Voicebot applet takes it; typed keys are the caller\'s input', async (t) => {
  const admin = await (await import('../helpers/server.js')).login(base);
  t.equal((await api(base, 'PUT', '/inbound-numbers/+918047491899', { token: admin, body: {} })).status, 201);
  const call = await fake.ringIn({ from: '09812300001', to: '08047491899' });
  t.equal(call.appletStatus, 200);
  t.match(call.streamUrl, /\/v1\/media\/exotel\?call_id=call_[0-9a-f]{24}&token=/);
  const id = new URL(call.streamUrl!).searchParams.get('call_id')!;
  await waitFor('the agent to speak', () => call.played > 0);
  for (const d of ['7', '#']) fake.sendDtmf(call, d);
  await waitFor('the keys as the caller\'s turn', async () => (await messages(id)).some((m) => m.role === 'caller' && m.text === '[keypad] 7'));
  t.equal((await api(base, 'POST', `/calls/${id}/tones`, { ...auth, body: { digits: '5' } })).status, 202, 'tones in-band');
  t.equal((await api(base, 'POST', `/calls/${id}/hangup`, auth)).status, 200);
  const done = await ended(id);
  t.match(done, { status: 'completed', ended_reason: 'hangup_api', direction: 'inbound', from: '+919812300001', to: '+918047491899' });
  const unknown = await fake.ringIn({ from: '09812300001', to: '08047400000' });
  t.equal(unknown.appletStatus, 403, 'a number nobody routes: the applet is refused and the flow goes on');
});

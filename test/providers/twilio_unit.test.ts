/**
 * The Twilio carrier's parts: the signature against the vendor's own twilio package, the status and AMD mapping,
 * the error mapping, and the carrier itself against the fake Twilio (REST + signed callbacks, no service): the
 * request it makes, each unanswered outcome, errors, retries, the ring timeout, cancel, hang-up, transfer, and
 * callbacks repeated or out of order.
 */
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import twilio from 'twilio';
import type { CarrierCallEvent } from '../../src/adapters/types.js';
import { CallCapabilities } from '../../src/auth/call_capability.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { twilioSignature, verifyTwilioSignature } from '../../src/carriers/twilio/signature.js';
import { outcomeOfApiError } from '../../src/carriers/twilio/errors.js';
import { TwilioApiError } from '../../src/carriers/twilio/rest.js';
import { advances, applyAmd, applyStatus, carrierStatusOf, machineEvent, unansweredOutcome } from '../../src/carriers/twilio/status.js';
import { connectStreamTwiml, dialTwiml } from '../../src/carriers/twilio/markup.js';
import { TwilioCarrier } from '../../src/carriers/twilio/carrier.js';
import { CallTracker } from '../../src/carriers/call_tracker.js';
import { FakeTwilio } from '../fakes/twilio.js';

const SID = 'AC' + '1'.repeat(32);
const TOKEN = 'fake-auth-token-0123456789abcdef';

t.test('signatures agree with the twilio package both ways', async (t) => {
  const cases: Array<[string, Record<string, string | string[]>]> = [
    ['https://mycompany.com/myapp.php?foo=1&bar=2', { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' }],
    ['wss://voice.example.test/v1/media/twilio', {}],
    ['https://voice.example.test/v1/carriers/twilio/status?call_id=call_0123', { CallStatus: 'completed', CallDuration: '27', Caller: 'Zoë ☎' }],
    ['https://voice.example.test/v1/carriers/twilio/amd?call_id=x', { Digits: ['5678', '1234', '1234'], Sid: 'CA123' }],
  ];
  for (const [url, params] of cases) {
    const theirs = twilio.getExpectedTwilioSignature(TOKEN, url, params as Record<string, string>);
    t.equal(twilioSignature(TOKEN, url, params), theirs, `same signature for ${url}`);
    t.ok(verifyTwilioSignature(TOKEN, url, theirs, params), 'theirs verifies with ours');
    t.ok(twilio.validateRequest(TOKEN, twilioSignature(TOKEN, url, params), url, params as Record<string, string>), 'ours validates with theirs');
    t.notOk(verifyTwilioSignature(TOKEN, url, twilio.getExpectedTwilioSignature('another-token', url, params as Record<string, string>), params), 'another token fails');
    t.notOk(verifyTwilioSignature(TOKEN, url + 'x', theirs, params), 'another URL fails');
  }
  t.equal(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', cases[0][1]), 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', 'the published vector');
});

t.test('status mapping: ranks, unanswered outcomes, the carrier\'s words, AMD verdicts', async (t) => {
  t.ok(advances(undefined, 'ringing'));
  t.ok(advances('ringing', 'in-progress'));
  t.notOk(advances('in-progress', 'ringing'), 'older news is ignored');
  t.notOk(advances('ringing', 'ringing'), 'a repeat is ignored');
  t.notOk(advances('completed', 'busy'), 'an end is final');
  t.equal(unansweredOutcome('busy'), 'busy');
  t.equal(unansweredOutcome('no-answer'), 'no_answer');
  t.equal(unansweredOutcome('failed'), 'failed');
  t.equal(unansweredOutcome('canceled'), 'failed');
  t.equal(carrierStatusOf({ CallStatus: 'busy', SipResponseCode: '486' }), 'busy (sip 486)');
  t.equal(carrierStatusOf({ CallStatus: 'failed', ErrorCode: '32009' }), 'failed (error 32009)');
  t.same(machineEvent('machine_end_beep'), { type: 'machine', beepDone: true, carrierStatus: 'answered_by machine_end_beep' });
  t.same(machineEvent('machine_end_silence'), { type: 'machine', beepDone: true, carrierStatus: 'answered_by machine_end_silence' });
  t.same(machineEvent('machine_start'), { type: 'machine', beepDone: false, carrierStatus: 'answered_by machine_start' });
  t.equal(machineEvent('fax')?.type, 'machine');
  t.equal(machineEvent('human'), undefined);
  t.equal(machineEvent('unknown'), undefined);
});

t.test('any order, any repeats: answered once, ended once, never ringing after the answer', async (t) => {
  const news: Array<['status' | 'amd', string]> = [['status', 'initiated'], ['status', 'ringing'], ['status', 'in-progress'], ['amd', 'human'], ['status', 'completed']];
  const orders: Array<typeof news> = [];
  const permute = (rest: typeof news, done: typeof news) => {
    if (!rest.length) { orders.push(done); return; }
    rest.forEach((n, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...done, n]));
  };
  permute(news, []);
  for (const order of orders) {
    const calls = new CallTracker();
    const events: string[] = [];
    const { call, result } = calls.track('call_p', { data: {}, onEvent: (e) => events.push(e.type), ringTimeoutMs: 60_000, cancel: async () => {} });
    call.carrierCallId = 'CA1';
    const results: string[] = [];
    void result.then((r) => results.push(r.outcome));
    for (const [hook, v] of [...order, ...order]) { // every callback twice
      if (!calls.find('call_p', 'CA1')) continue; // forgotten once over: later news is acknowledged and ignored
      if (hook === 'status') applyStatus(calls, call, { CallSid: 'CA1', CallStatus: v }); else applyAmd(calls, call, { CallSid: 'CA1', AnsweredBy: v });
    }
    await result;
    const label = order.map((n) => n[1]).join(',');
    t.equal(results.length, 1, label);
    const answeredFirst = order.findIndex((n) => n[1] === 'in-progress' || n[0] === 'amd') < order.findIndex((n) => n[1] === 'completed');
    if (answeredFirst) {
      t.equal(results[0], 'answered', label);
      t.equal(events.filter((e) => e === 'ended').length, 1, `${label}: ended once`);
    } else {
      t.equal(results[0], 'failed', `${label}: completed before any answer`);
      t.same(events.filter((e) => e === 'ended'), [], label);
    }
    const answeredAt = order.findIndex((n) => n[1] === 'in-progress' || n[0] === 'amd');
    const ringingAt = order.findIndex((n) => n[1] === 'ringing');
    t.equal(events.includes('ringing'), ringingAt < answeredAt && ringingAt < order.findIndex((n) => n[1] === 'completed'), `${label}: ringing only before the answer`);
  }
});

t.test('error mapping: each Twilio error is a failed call with its code and reason kept', async (t) => {
  const cases: Array<[number, number | undefined, RegExp]> = [
    [400, 21211, /^error 21211 invalid_number: /], [400, 21210, /^error 21210 unverified_caller_id/], [400, 21212, /^error 21212 invalid_caller_id/],
    [400, 21215, /^error 21215 geo_permission/], [429, 20429, /^error 20429 rate_limited/], [503, undefined, /^error 503 carrier_unavailable/],
    [401, 20003, /^error 20003 authentication_failed/], [400, 99999, /^error 99999 rejected/],
  ];
  for (const [status, code, want] of cases) {
    const r = outcomeOfApiError(new TwilioApiError(status, code, 'Twilio says no'));
    t.equal(r.outcome, 'failed');
    t.match(r.carrierStatus, want);
    t.match(r.carrierStatus, /Twilio says no$/);
  }
  t.ok(new TwilioApiError(429, 20429, '').retryable);
  t.ok(new TwilioApiError(500, undefined, '').retryable);
  t.notOk(new TwilioApiError(400, 21211, '').retryable);
});

t.test('TwiML: escaped, parameters as <Parameter>, no query string in the stream URL', async (t) => {
  const x = connectStreamTwiml('wss://voice.example.test/v1/media/twilio', { call_id: 'call_1', note: 'a "b" <c> & d' });
  t.match(x, /<Connect><Stream url="wss:\/\/voice\.example\.test\/v1\/media\/twilio"><Parameter name="call_id" value="call_1"\/>/);
  t.match(x, /value="a &quot;b&quot; &lt;c&gt; &amp; d"/);
  t.throws(() => connectStreamTwiml('wss://x.test/media?token=1', {}), RangeError);
  t.match(dialTwiml('+14155550100'), /<Dial>\+14155550100<\/Dial>/);
  t.match(dialTwiml('+14155550100', '+14155550111'), /<Dial callerId="\+14155550111">\+14155550100<\/Dial>/);
  t.match(dialTwiml('sip:desk@example.test'), /<Dial><Sip>sip:desk@example.test<\/Sip><\/Dial>/);
});

// ---- the carrier against the fake, with a tiny stand-in for our callback route ----
const PUBLIC = 'https://voice.example.test/v1';
const fake = await new FakeTwilio(SID, TOKEN).start();
t.teardown(() => fake.close());
let carrier!: TwilioCarrier;
const door = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const hook = /\/carriers\/twilio\/([a-z]+)/.exec(req.url ?? '')?.[1] ?? '';
    void carrier.callback(hook, { method: req.method ?? '', url: PUBLIC + (req.url ?? '').replace(/^\/v1/, ''), headers: req.headers, rawBody: Buffer.concat(chunks), params: {} })
      .then((a) => res.writeHead(a.status, { 'content-type': a.contentType ?? 'text/plain' }).end(a.body ?? ''));
  });
});
await new Promise<void>((r) => door.listen(0, '127.0.0.1', r));
t.teardown(() => new Promise<void>((r) => door.close(() => r())));
const doorUrl = `http://127.0.0.1:${(door.address() as AddressInfo).port}/v1`;
fake.tunnel = (u) => u.replace(PUBLIC, doorUrl);

const config = loadConfig({ DATA_DIR: 'memory', CARRIER: 'twilio', TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_FROM_NUMBER: '+14155550100',
  TWILIO_API_BASE_URL: fake.baseUrl, RING_TIMEOUT_SECONDS: '5', PUBLIC_BASE_URL: PUBLIC });
carrier = new TwilioCarrier({ config, log: createLogger('silent'), publicBaseUrl: PUBLIC, capabilities: new CallCapabilities('k'.repeat(32), 'media-stream'),
  onStream: () => false, inbound: async () => undefined }, { ringGraceMs: 300, retryBaseMs: 20 });
t.teardown(() => carrier.close());

/** polls `f` until it gives a value; fails after `ms` (generous: CI machines are loaded) */
async function until<T>(what: string, f: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const place = (to: string, callId: string, events: CarrierCallEvent[] = [], signal?: AbortSignal) => carrier.placeCall({
  callId, tenantId: 'ten_dev', to, mediaUrl: 'wss://voice.example.test/v1/media/twilio', parameters: { call_id: callId, stream_token: 'tok.en' },
}, { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) });

t.test('an answered call: the create request as documented, ringing reported, resolved answered', async (t) => {
  fake.plan('+14155550111', { answer: 'human', ringMs: 100 });
  const events: CarrierCallEvent[] = [];
  const r = await place('+14155550111', 'call_a', events);
  t.match(r, { outcome: 'answered', carrierCallId: /^CA[0-9a-f]{32}$/, carrierStatus: 'in-progress' });
  t.same(events, [{ type: 'ringing' }]);
  const req = fake.requests.find((q) => q.path.endsWith('/Calls.json'))!;
  t.ok(req.authorized, 'basic auth AccountSid:AuthToken');
  const f = req.form;
  t.equal(f.get('To'), '+14155550111');
  t.equal(f.get('From'), '+14155550100');
  t.same(f.getAll('StatusCallbackEvent'), ['initiated', 'ringing', 'answered', 'completed']);
  t.equal(f.get('StatusCallback'), `${PUBLIC}/carriers/twilio/status?call_id=call_a`);
  t.equal(f.get('MachineDetection'), 'DetectMessageEnd');
  t.equal(f.get('AsyncAmd'), 'true');
  t.equal(f.get('AsyncAmdStatusCallback'), `${PUBLIC}/carriers/twilio/amd?call_id=call_a`);
  t.equal(f.get('Timeout'), '5');
  const call = fake.callTo('+14155550111')!;
  t.equal(call.streamUrl, 'wss://voice.example.test/v1/media/twilio', 'no query string');
  t.same(call.parameters, { call_id: 'call_a', stream_token: 'tok.en' });
  await carrier.hangup(r.carrierCallId);
  await call.ended;
  t.equal(call.status, 'completed', 'hung up with Status=completed');
  await carrier.hangup(r.carrierCallId);
  t.pass('hanging up a call that is gone (20404) is fine');
});

t.test('unanswered calls end with their outcome and the carrier\'s words', async (t) => {
  for (const [answer, outcome, status] of [['busy', 'busy', 'busy (sip 486)'], ['no-answer', 'no_answer', 'no-answer'], ['failed', 'failed', 'failed']] as const) {
    const to = `+1415555020${answer.length}`;
    fake.plan(to, { answer, ringMs: 50 });
    const r = await place(to, `call_${answer}`);
    t.match(r, { outcome, carrierStatus: status }, answer);
  }
});

t.test('Twilio errors: failed with a clear reason; rate limits and 5xx retried', async (t) => {
  fake.failNext({ status: 400, code: 21211, message: "The 'To' number +1415 is not a valid phone number." });
  t.match(await place('+14155550301', 'call_e1'), { outcome: 'failed', carrierStatus: /^error 21211 invalid_number: The 'To' number/ });
  fake.failNext({ status: 400, code: 21210, message: "The source phone number provided, +14155550100, is not yet verified for your account." });
  t.match(await place('+14155550301', 'call_e2'), { outcome: 'failed', carrierStatus: /^error 21210 unverified_caller_id/ });
  fake.failNext({ status: 400, code: 21215, message: 'Account not authorized to call +91... Perhaps you need to enable some international permissions' });
  t.match(await place('+14155550301', 'call_e3'), { outcome: 'failed', carrierStatus: /^error 21215 geo_permission/ });
  const before = fake.requests.length;
  fake.failNext({ status: 429, code: 20429, message: 'Too Many Requests', retryAfterSeconds: 0 }, { status: 503, code: 20500, message: 'Service unavailable' });
  fake.plan('+14155550302', { answer: 'busy', ringMs: 20 });
  t.match(await place('+14155550302', 'call_e4'), { outcome: 'busy' }, 'placed on the third try');
  t.equal(fake.requests.length - before, 3);
  fake.failNext(...Array.from({ length: 3 }, () => ({ status: 500, code: 20500, message: 'Internal Server Error' })));
  t.match(await place('+14155550302', 'call_e5'), { outcome: 'failed', carrierStatus: /^error 20500/ }, 'gives up after three tries');
});

t.test('no callback at all: the ring timeout ends it as no_answer and cancels the call', async (t) => {
  fake.plan('+14155550401', { answer: 'lost' });
  const started = Date.now();
  const r = await place('+14155550401', 'call_lost');
  t.match(r, { outcome: 'no_answer', carrierStatus: /^ring_timeout/ });
  t.ok(Date.now() - started >= 5000, 'not before RING_TIMEOUT_SECONDS');
  const call = fake.callTo('+14155550401')!;
  await call.ended;
  t.equal(call.status, 'canceled');
});

t.test('canceled while ringing: rejected as canceled, the call canceled at Twilio', async (t) => {
  fake.plan('+14155550501', { answer: 'human', ringMs: 60_000 }); // never answers before the abort, however slow the machine
  const ac = new AbortController();
  const events: CarrierCallEvent[] = [];
  const p = place('+14155550501', 'call_cancel', events, ac.signal);
  await until('ringing reported', () => events.some((e) => e.type === 'ringing') || undefined);
  ac.abort();
  await t.rejects(p, { name: 'AdapterError', code: 'canceled' });
  const call = fake.callTo('+14155550501')!;
  await call.ended;
  t.equal(call.status, 'canceled');
});

t.test('canceled while Twilio is still answering the create: the call it made is canceled, not left ringing', async (t) => {
  fake.plan('+14155550502', { answer: 'human', ringMs: 60_000 });
  fake.createAnswerDelayMs = 300;
  t.teardown(() => { fake.createAnswerDelayMs = 0; });
  const ac = new AbortController();
  const p = place('+14155550502', 'call_cancel_create', [], ac.signal);
  await until('the call exists at Twilio', () => fake.callTo('+14155550502'));
  ac.abort(); // Twilio has not answered the create yet: we do not know the call's sid
  await t.rejects(p, { name: 'AdapterError', code: 'canceled' });
  const call = fake.callTo('+14155550502')!;
  await t.resolves(until('canceled at Twilio', () => call.status === 'canceled' || undefined, 10_000), 'canceled at Twilio once its sid came back');
});

t.test('a request Twilio would refuse is not sent: a stream URL with a query string, TwiML over 4000 characters', async (t) => {
  const before = fake.requests.length;
  const base = { callId: 'call_bad', tenantId: 'ten_dev', to: '+14155550801', parameters: {} };
  await t.rejects(carrier.placeCall({ ...base, mediaUrl: 'wss://voice.example.test/v1/media/twilio?token=x' }), { name: 'AdapterError', code: 'invalid' });
  await t.rejects(carrier.placeCall({ ...base, mediaUrl: 'wss://voice.example.test/v1/media/twilio', parameters: { big: 'x'.repeat(4000) } }),
    { name: 'AdapterError', code: 'invalid' });
  t.equal(fake.requests.length, before);
});

t.test('transfer: <Dial> to the target; our hang-up afterwards leaves the bridged call alone', async (t) => {
  fake.plan('+14155550601', { answer: 'human', ringMs: 20 });
  const r = await place('+14155550601', 'call_tr');
  await t.rejects(carrier.transfer(r.carrierCallId, 'not a number'), { name: 'AdapterError', code: 'invalid' });
  await carrier.transfer(r.carrierCallId, '+14155550999');
  const call = fake.callTo('+14155550601')!;
  t.equal(call.dialed, '+14155550999');
  const twiml = fake.requests.find((q) => q.path.endsWith(`/Calls/${call.sid}.json`) && q.form.get('Twiml'))!.form.get('Twiml');
  t.match(twiml, /<Response><Dial callerId="\+14155550100">\+14155550999<\/Dial><\/Response>/, 'shown our number');
  await carrier.hangup(r.carrierCallId);
  t.equal(call.status, 'in-progress', 'still bridged to the human');
  t.notOk(fake.requests.some((q) => q.path.includes(call.sid) && q.form.get('Status') === 'completed'));
  fake.hangUp(call.sid);
  await call.ended;
  fake.plan('+14155550602', { answer: 'human', ringMs: 20 });
  const r2 = await place('+14155550602', 'call_tr2');
  const during = carrier.transfer(r2.carrierCallId, '+14155550999');
  await carrier.hangup(r2.carrierCallId); // the stream ended before Twilio answered the transfer
  await during;
  const call2 = fake.callTo('+14155550602')!;
  t.equal(call2.dialed, '+14155550999');
  t.equal(call2.status, 'in-progress', 'a hang-up while the transfer is in flight leaves the call to the human');
  fake.hangUp(call2.sid);
  await call2.ended;
  await t.rejects(carrier.transfer('CA' + '0'.repeat(32), '+14155550999'), { name: 'AdapterError', code: 'failed' }, 'unknown call: 20404');
});

t.test('callbacks: forged or unsigned 403; repeated and out of order ignored; unknown hook 404', async (t) => {
  fake.plan('+14155550701', { answer: 'lost' }); // only the callbacks below
  const events: CarrierCallEvent[] = [];
  const p = place('+14155550701', 'call_cb', events);
  const { sid } = await until('the create request at the fake', () => fake.callTo('+14155550701'));
  const url = `${PUBLIC}/carriers/twilio/status?call_id=call_cb`;
  const send = async (hook: string, params: Record<string, string>, sign = true, signUrl = url) => {
    const u = signUrl.replace('/status?', `/${hook}?`);
    const body = new URLSearchParams(params).toString();
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (sign) headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(TOKEN, u, params);
    return carrier.callback(hook, { method: 'POST', url: u, headers, rawBody: Buffer.from(body), params });
  };
  const forged = await send('status', { CallSid: sid, CallStatus: 'completed' }, false);
  t.equal(forged.status, 403);
  t.match(JSON.parse(forged.body!), { code: 'forbidden' });
  const wrongUrl = await carrier.callback('status', { method: 'POST', url, headers: { 'x-twilio-signature':
    twilio.getExpectedTwilioSignature(TOKEN, url.replace('call_cb', 'call_other'), { CallSid: sid, CallStatus: 'busy' }) },
  rawBody: Buffer.from(`CallSid=${sid}&CallStatus=busy`), params: {} });
  t.equal(wrongUrl.status, 403, 'signed for another URL');
  t.equal((await send('nope', { CallSid: sid })).status, 404);
  t.equal((await send('status', { CallSid: sid, CallStatus: 'ringing' })).status, 204);
  t.equal((await send('status', { CallSid: sid, CallStatus: 'initiated' })).status, 204, 'older news');
  t.equal((await send('amd', { CallSid: sid, AnsweredBy: 'machine_end_beep' })).status, 204, 'the verdict before the answer');
  t.match(await p, { outcome: 'answered' }, 'an AMD verdict means answered');
  t.equal((await send('status', { CallSid: sid, CallStatus: 'in-progress' })).status, 204);
  t.equal((await send('amd', { CallSid: sid, AnsweredBy: 'machine_end_beep' })).status, 204);
  t.equal((await send('status', { CallSid: sid, CallStatus: 'completed' })).status, 204);
  t.equal((await send('status', { CallSid: sid, CallStatus: 'completed' })).status, 204);
  t.same(events.map((e) => e.type), ['ringing', 'machine', 'ended'], 'each told once, in a sensible order');
  t.same(events[1], { type: 'machine', beepDone: true, carrierStatus: 'answered_by machine_end_beep' });
  t.same(events[2], { type: 'ended', carrierStatus: 'completed' });
});

/**
 * A call from a browser, driven from Node as a page would: POST /v1/browser-calls, the leg on /v1/media/browser
 * with human speech from a WAV (PCM16 16 kHz), the agent's audio back, the live items on the leg, and the call like
 * any other afterwards (inbound on the line "browser", disclosure delivered, recording, call.completed, KPIs). What
 * the agent says is not asserted: only that it speaks, so the test holds for any speech-to-text and voice.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import t from 'tap';
import { readWav } from '../../src/audio/index.js';
import type { SpeechToTextAdapter, SttStream, TranscriptResult } from '../../src/adapters/types.js';
import { api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { webhookReceiver } from '../helpers/webhook_receiver.js';
import { waitFor } from '../providers/live_env.js';
import { FIXTURE_WAV } from '../browser/helpers/browser.js';
import { openLeg } from './helpers/browser_leg.js';

const TIME_SCALE = 1;
const logLines: string[] = [];
const logSink = new PassThrough();
logSink.on('data', (c: Buffer) => logLines.push(c.toString()));
const srv = await startTestServer({
  env: { SIM_TIME_SCALE: String(TIME_SCALE), WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_POLL_MS: '50', LOG_LEVEL: 'debug', DEMO_REQUESTS_PER_MINUTE: '4',
    TRUST_PROXY: 'loopback' }, // the limit's test counts as a visitor of its own (X-Forwarded-For)
  logStream: logSink,
});
/** every capability handed out: none may reach the log */
const tokens: string[] = [];
t.teardown(() => srv.close());
const { received, url: hookUrl } = await webhookReceiver(t);
const admin = await login(srv.baseUrl);
const auth = { token: admin };
const speech = readWav(readFileSync(FIXTURE_WAV));
/** the fixture's first utterance (0.04-6.46 s), then a little of its pause */
const utterance = speech.pcm.subarray(0, Math.round(speech.sampleRateHz * 7));
const agentLine = (m: Record<string, any>) => m.event === 'item' && m.item.type === 'transcript' && m.item.speaker === 'agent';

t.test('a visitor calls the agent from a browser and is answered like a phone caller', async (t) => {
  t.equal((await api(srv.baseUrl, 'PUT', '/inbound-defaults', { ...auth, body: { webhook_url: hookUrl } })).status, 200);
  const r = await api(srv.baseUrl, 'POST', '/browser-calls', { body: { time_zone: 'Asia/Kolkata' } });
  t.equal(r.status, 201, JSON.stringify(r.body));
  t.match(r.body, { call: { id: /^call_[0-9a-f]{24}$/, direction: 'inbound', to: 'browser', status: 'ringing', webhook_url: hookUrl },
    media_url: /^ws:\/\/.*\/v1\/media\/browser$/, token: /^\d+\.[\w-]+\.[\w-]+$/, max_duration_seconds: 600 });
  const id = r.body.call.id as string;
  tokens.push(r.body.token);

  const leg = await openLeg(r.body.media_url);
  leg.send({ event: 'start', call_id: id, token: r.body.token, media_format: { encoding: 'pcm16', sample_rate: 16_000 } });
  const started = await leg.next((m) => m.event === 'started', 'started');
  t.same(started, { event: 'started', call_id: id, media_format: { encoding: 'pcm16', sample_rate: 8000 } }, 'the agent is heard as PCM16 at 8 kHz');
  leg.microphone(speech.sampleRateHz, 20 / TIME_SCALE);
  // the disclosure comes first, as on a phone call; the caller speaks once the agent has had its say
  const disclosure = await leg.next(agentLine, 'the first agent words');
  t.equal(disclosure.item.call_id, id, 'the live items of this call');
  await leg.next((m) => agentLine(m) && m.item.seq > disclosure.item.seq,
    'the agent\'s first question');
  await leg.say(utterance);
  t.ok(leg.audioBytes >= 8000 * 2, `the agent's audio came back (${leg.audioBytes} bytes)`);
  const pcm = Buffer.concat(leg.messages.filter((m) => m.event === 'media').map((m) => Buffer.from(m.payload, 'base64')));
  let peak = 0;
  for (let i = 0; i + 1 < pcm.length; i += 2) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i)));
  t.ok(peak > 1000, `and it is not silence (peak ${peak})`);

  leg.send({ event: 'stop' });
  t.match(await leg.closed, { code: 1000 }, 'the leg closes when the call ends');
  const call = await waitForCallEnd(srv.baseUrl, id, { authorization: `Bearer ${admin}` });
  t.match(call, { status: 'completed', ended_reason: 'caller_hangup', direction: 'inbound', to: 'browser', from: 'browser' });
  t.same(call.transitions.map((x: { to: string }) => x.to), ['ringing', 'in_progress', 'completed']);
  t.ok(call.disclosure_delivered_at, 'the AI disclosure was delivered in full');
  t.ok(call.recording_url, 'recorded');
  const rec = await fetch(call.recording_url);
  t.equal(rec.status, 200);
  t.ok((await rec.arrayBuffer()).byteLength > 8000, 'the recording holds the call');
  t.ok(call.metrics, 'with its metrics');
  const hook = await waitFor('the webhook', () => received.find((x) => x.body.includes(id)));
  t.match(JSON.parse(hook.body), { event: 'call.completed', call_id: id, direction: 'inbound', to: 'browser' });
  const kpis = (await api(srv.baseUrl, 'GET', '/kpis', auth)).body;
  t.ok(kpis.inbound >= 1 && kpis.connected >= 1, 'counted in the KPIs');
  const items = (await api(srv.baseUrl, 'GET', `/calls/${id}/events`, auth)).body.data as Array<{ seq: number; type: string }>;
  const relayed = leg.messages.filter((m) => m.event === 'item').map((m) => m.item.seq);
  t.ok(relayed.every((seq) => items.some((i) => i.seq === seq)), 'the leg got the stored live items, same seqs');
});

t.test('the caller is heard and can interrupt the agent (scripted ears: any recogniser would do)', async (t) => {
  t.teardown(srv.services.callEngine.overrideAdapters({ stt: scriptedEars('my name is Priya Sharma') }));
  const r = await api(srv.baseUrl, 'POST', '/browser-calls', { body: {} });
  t.equal(r.status, 201);
  const id = r.body.call.id as string;
  tokens.push(r.body.token);
  const leg = await openLeg(r.body.media_url);
  leg.send({ event: 'start', call_id: id, token: r.body.token, media_format: { encoding: 'pcm16', sample_rate: 16_000 } });
  await leg.next((m) => m.event === 'started', 'started');
  leg.microphone(speech.sampleRateHz, 20 / TIME_SCALE);
  const question = await leg.next((m) => agentLine(m) && m.item.seq > 3, 'the first question');
  await leg.say(utterance);
  const heard = await leg.next((m) => m.event === 'item' && m.item.type === 'transcript' && m.item.speaker === 'caller', 'the caller\'s words');
  t.equal(heard.item.text, 'my name is Priya Sharma', 'the caller\'s turn, from the browser\'s audio');
  // the agent answers; the caller talks over that answer, and the browser is told to drop what it holds
  const answering = leg.messages.length;
  await leg.next((m) => m.event === 'media' && leg.messages.indexOf(m) >= answering, 'the agent answering');
  void leg.say(utterance);
  await leg.next((m) => m.event === 'clear' && leg.messages.indexOf(m) >= answering, 'clear (barge-in)');
  t.ok(question.item.seq < heard.item.seq, 'in order');
  leg.ws.close();
  const call = await waitForCallEnd(srv.baseUrl, id, { authorization: `Bearer ${admin}` });
  t.match(call, { status: 'completed', ended_reason: 'media_closed' }, 'closing the page ends the call');
  t.ok(call.metrics.interruptions_handled >= 1, `the interruption is counted (${JSON.stringify(call.metrics)})`);
});

t.test('who may call, the limits, and refused legs', async (t) => {
  const own = await api(srv.baseUrl, 'POST', '/browser-calls', { token: admin, body: {} });
  t.equal(own.status, 201, 'with a JWT: a call of the caller\'s tenant');
  tokens.push(own.body.token);
  t.match(own.body.call.context, { channel: 'browser', direction: 'inbound' });
  t.match(await api(srv.baseUrl, 'POST', '/browser-calls', { body: { time_zone: 'Mars/Olympus' } }), { status: 400, body: { code: 'validation_failed' } });
  t.match(await api(srv.baseUrl, 'POST', '/browser-calls', { body: { to: '+14155550123' } }), { status: 400 }, 'nothing but time_zone');

  // a leg that is not the call's: a wrong token, then the right one used twice
  const r = await api(srv.baseUrl, 'POST', '/browser-calls', { body: {} });
  t.equal(r.status, 201);
  tokens.push(r.body.token);
  const start = (token: string) => ({ event: 'start', call_id: r.body.call.id, token, media_format: { encoding: 'mulaw', sample_rate: 8000 } });
  let leg = await openLeg(r.body.media_url);
  leg.send(start(tokens[0]));
  t.match(await leg.closed, { code: 1008, reason: 'not authorized for this call' }, 'another call\'s token');
  leg = await openLeg(r.body.media_url);
  leg.send({ ...start(r.body.token), media_format: { encoding: 'opus', sample_rate: 48000 } });
  t.match(await leg.closed, { code: 1003 }, 'a format the leg does not speak');
  leg = await openLeg(r.body.media_url);
  leg.send('{"event":"start",');
  t.match(await leg.closed, { code: 1007 }, 'not JSON');
  leg = await openLeg(r.body.media_url);
  leg.send(start(r.body.token));
  await leg.next((m) => m.event === 'started', 'started');
  const second = await openLeg(r.body.media_url);
  second.send(start(r.body.token));
  t.match(await second.closed, { code: 1008, reason: 'not authorized for this call' }, 'a token is good once');
  await api(srv.baseUrl, 'POST', `/calls/${r.body.call.id}/hangup`, { token: admin });
  t.match(await leg.closed, { code: 1000 }, 'hanging the call up closes its leg');

  // anonymous calls count against the demo's per-address limit (4 a minute here), a visitor of its own
  const visitor = { headers: { 'x-forwarded-for': '203.0.113.7' } };
  for (let i = 0; i < 4; i++) {
    const ok = await api(srv.baseUrl, 'POST', '/browser-calls', { ...visitor, body: {} });
    t.equal(ok.status, 201, `call ${i + 1}`);
    tokens.push(ok.body.token);
    await api(srv.baseUrl, 'POST', `/calls/${ok.body.call.id}/hangup`, { token: admin });
  }
  const refused = await api(srv.baseUrl, 'POST', '/browser-calls', { ...visitor, body: {} });
  t.match(refused, { status: 429, body: { code: 'rate_limited' } });
  t.ok(refused.headers.get('retry-after'), 'with Retry-After');
  await api(srv.baseUrl, 'POST', `/calls/${own.body.call.id}/hangup`, { token: admin });

  const log = logLines.join('');
  t.ok(log.includes('media refused'), 'the refusals are logged');
  t.ok(tokens.length >= 5 && tokens.every((x) => !log.includes(x) && !log.includes(x.split('.')[2])), 'and no capability ever is');
});

/** A recogniser that hears `words` in any loud audio: the leg is under test here, not recognition. */
function scriptedEars(words: string): SpeechToTextAdapter {
  const open = (): SttStream => {
    const listeners: Array<(r: TranscriptResult) => void> = [];
    let from: number | undefined;
    let to = 0;
    return {
      write(pcm, atMs) {
        let sum = 0;
        for (const v of pcm) sum += v * v;
        if (Math.sqrt(sum / Math.max(1, pcm.length)) < 300) return;
        if (from === undefined) { from = atMs; for (const l of listeners) l({ text: words, final: false, startMs: atMs, endMs: atMs }); }
        to = atMs + (pcm.length / 8);
      },
      async finalize() {
        const r: TranscriptResult = from === undefined ? { text: '', final: true, startMs: to, endMs: to } : { text: words, final: true, startMs: from, endMs: to };
        from = undefined;
        for (const l of listeners) l(r);
        return r;
      },
      onResult: (l) => { listeners.push(l); },
      close: () => { listeners.length = 0; },
    };
  };
  return { open, transcribe: async () => ({ text: words, final: true, startMs: 0, endMs: 0 }) };
}

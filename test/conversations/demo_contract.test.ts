/**
 * What a new user stumbled on in the demo loop: a raw audio/wav body refused as non-JSON; a wrong multipart part
 * name answered "Unexpected file field"; a malformed form answered 500; a WAV declaring 7 Hz cost half a second
 * of CPU; "I want to speak to a human" in an anonymous demo promised a colleague and created no handoff; and the
 * demo page needs the reply as audio.
 */
import t from 'tap';
import { startTestServer, api, login, API_KEY } from '../helpers/server.js';
import { makeTenant } from '../helpers/tenants.js';
import { readWav, writeWav } from '../../src/audio/index.js';
import { decodeSimVoice, encodeSimVoice } from '../../src/simvoice/index.js';

// tone code (SIM_SPEECH=tones): the route's contract is under test, with input the simulator transcribes exactly
const srv = await startTestServer({ env: { DEMO_TENANT_REQUESTS_PER_MINUTE: '1000', SIM_SPEECH: 'tones' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const devAdmin = await login(b);

function simVoiceWav(text: string, rate = 8000): Buffer {
  const speech = encodeSimVoice(text, { sampleRateHz: rate });
  const pcm = new Int16Array(rate + speech.length);
  pcm.set(speech, rate / 2);
  return Buffer.from(writeWav({ sampleRateHz: rate, channels: [pcm] }));
}
const newConv = async (token?: string) => (await api(b, 'POST', '/conversations', { token, body: {} })).body.id as string;
async function send(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(b + path, { method: 'POST', body, headers });
  const text = await res.text();
  let json: any; try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, type: res.headers.get('content-type'), body: json };
}

t.test('a raw audio/wav body is an audio turn; ?reply_audio=true adds the spoken reply', async (t) => {
  const id = await newConv();
  const r = await send(`/conversations/${id}/audio?reply_audio=true`, new Uint8Array(simVoiceWav('my name is Anna Lee')), { 'content-type': 'audio/wav' });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.caller.text, 'my name is Anna Lee');
  t.match(r.body.reply_audio, { content_type: 'audio/wav', base64: /^[A-Za-z0-9+/]+=*$/ });
  const wav = readWav(Buffer.from(r.body.reply_audio.base64, 'base64'));
  t.match(wav, { sampleRateHz: 16000, channels: 1 });
  t.equal(decodeSimVoice(wav.pcm, 16000), '', 'speech in the offline voice, not the simulated tone code');
  t.ok(wav.pcm.length / 16000 > 0.3 * r.body.agent.text.split(/\s+/).length, 'about as long as the reply takes to say');
  const other = await send(`/conversations/${id}/audio`, new Uint8Array(simVoiceWav('hello')), { 'content-type': 'audio/x-wav' });
  t.equal(other.status, 200);
  t.notOk('reply_audio' in other.body, 'only when asked');
  const plain = await send(`/conversations/${id}/audio`, 'hello', { 'content-type': 'text/plain' });
  t.equal(plain.status, 415);
  t.match(plain.body.detail, /wavBase64.*multipart.*"audio".*audio\/wav/);
});

t.test('reply_audio on text turns, JSON audio turns and multipart ones: one shape', async (t) => {
  const id = await newConv();
  const text = await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'Hello', reply_audio: true } });
  t.equal(text.status, 200);
  t.same(Object.keys(text.body.reply_audio).sort(), ['base64', 'content_type']);
  t.equal(text.body.reply_audio.content_type, 'audio/wav');
  const json = await api(b, 'POST', `/conversations/${id}/audio`, { body: { wavBase64: simVoiceWav('Anna').toString('base64'), reply_audio: true } });
  t.equal(json.body.reply_audio.content_type, 'audio/wav');
  const form = new FormData();
  form.append('reply_audio', 'true');
  form.append('audio', new Blob([new Uint8Array(simVoiceWav('a villa by the sea'))], { type: 'audio/wav' }), 'turn.wav');
  const multi = await send(`/conversations/${id}/audio`, form);
  t.equal(multi.status, 200, JSON.stringify(multi.body));
  t.equal(multi.body.reply_audio.content_type, 'audio/wav');
  const badFlag = new FormData();
  badFlag.append('reply_audio', 'yes please');
  badFlag.append('audio', new Blob([new Uint8Array(simVoiceWav('x'))]), 'turn.wav');
  t.equal((await send(`/conversations/${id}/audio`, badFlag)).status, 400);
  t.equal((await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'x', reply_audio: 'yes' } })).status, 400);
});

t.test('multipart errors name what was expected and are never 500', async (t) => {
  const id = await newConv();
  const path = `/conversations/${id}/audio`;
  const wrong = new FormData();
  wrong.append('file', new Blob([new Uint8Array(simVoiceWav('hi'))]), 'turn.wav');
  const w = await send(path, wrong);
  t.equal(w.status, 400);
  t.match(w.body.detail, /"file".*part named "audio"/);
  const noBoundary = await send(path, 'whatever', { 'content-type': 'multipart/form-data' });
  t.equal(noBoundary.status, 400);
  t.match(noBoundary.type, /application\/problem\+json/);
  t.match(noBoundary.body, { code: 'validation_failed', detail: /malformed multipart/ });
  const truncated = `--XyZ\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....`;
  const tr = await send(path, truncated, { 'content-type': 'multipart/form-data; boundary=XyZ' });
  t.equal(tr.status, 400, JSON.stringify(tr.body));
  t.match(tr.body.detail, /malformed multipart/);
  const health = await api(b, 'GET', '/health');
  t.equal(health.status, 200);
});

t.test('audio below 8 kHz is refused before any resampling; 8 kHz and up work', async (t) => {
  const id = await newConv();
  for (const rate of [7, 4000, 7999]) {
    const wav = Buffer.from(writeWav({ sampleRateHz: rate, channels: [new Int16Array(400)] }));
    const r = await api(b, 'POST', `/conversations/${id}/audio`, { body: { wavBase64: wav.toString('base64') } });
    t.equal(r.status, 422, `${rate} Hz`);
    t.match(r.body, { code: 'unprocessable_audio', audio_error: 'sample_rate_too_low' });
  }
  for (const rate of [8000, 22050, 44100]) {
    const wav = Buffer.from(writeWav({ sampleRateHz: rate, channels: [new Int16Array(rate / 2)] }));
    const ok = await api(b, 'POST', `/conversations/${id}/audio`, { body: { wavBase64: wav.toString('base64') } });
    t.equal(ok.status, 200, `${rate} Hz`);
    t.match(ok.body.audio, { sampleRateHz: rate, durationMs: 500 });
  }
});

t.test('anonymous "I want to speak to a human": a real handoff to the demo tenant, seen by its operators', async (t) => {
  const id = await newConv();
  await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'Hi, my name is Anita Rao' } });
  const r = await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'I want to speak to a human' } });
  t.equal(r.status, 200);
  t.equal(r.body.agent.escalation, 'caller_requested_human');
  t.equal(r.body.state, 'handoff', 'the conversation really is handed off');
  t.same(r.body.handoff, { handoff_state: 'waiting' }, 'the visitor is not told which tenant took it');
  const list = await api(b, 'GET', '/handoffs', { headers: { 'x-api-key': API_KEY } });
  t.ok(list.body.data.some((h: { id: string }) => h.id === id), "the demo tenant's operators see it");
  const accepted = await api(b, 'POST', `/handoffs/${id}/accept`, { token: devAdmin });
  t.equal(accepted.status, 200);
  t.equal((await api(b, 'POST', `/handoffs/${id}/reply`, { token: devAdmin, body: { text: 'Hello Anita, Priya here.' } })).status, 200);
  const view = await api(b, 'GET', `/conversations/${id}`);
  t.equal(view.status, 200, 'the visitor still reads it without a JWT');
  t.equal(view.body.messages.at(-1).text, 'Hello Anita, Priya here.');
  t.equal(view.body.tenant_id, null, 'nor when reading it afterwards');
  t.notOk(JSON.stringify([r.body, view.body]).includes('ten_dev'), 'no tenant id anywhere in what the visitor sees');
  const answer = await api(b, 'POST', `/conversations/${id}/turns`, { body: { text: 'hello?' } });
  t.equal(answer.status, 200, 'the visitor answers the operator');
  t.equal(answer.body.delivered_to, 'operator', 'and the agent does not');
  const other = await makeTenant(srv, 'demoh');
  t.equal((await api(b, 'GET', `/conversations/${id}`, { token: other.adminToken })).status, 404, 'other tenants do not see it');
});

t.test('without a demo tenant the agent says something true and nothing pretends to be handed off', async (t) => {
  const noDemo = await startTestServer({ env: { DEMO_TENANT_ID: 'none' } });
  t.teardown(() => noDemo.close());
  const id = (await api(noDemo.baseUrl, 'POST', '/conversations', { body: {} })).body.id;
  const r = await api(noDemo.baseUrl, 'POST', `/conversations/${id}/turns`, { body: { text: 'I want to speak to a human' } });
  t.equal(r.status, 200);
  t.notMatch(r.body.agent.text, /connect you with a colleague now/);
  t.match(r.body.agent.text, /no colleague I can connect you with/);
  t.equal(r.body.state, 'active');
  t.notOk(r.body.handoff);
});

t.test('demo use with a JWT is rate limited per tenant', async (t) => {
  const limited = await startTestServer({ env: { DEMO_TENANT_REQUESTS_PER_MINUTE: '3' } });
  t.teardown(() => limited.close());
  const tok = await login(limited.baseUrl);
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) statuses.push((await api(limited.baseUrl, 'POST', '/conversations', { token: tok, body: {} })).status);
  t.same(statuses, [201, 201, 201, 429, 429]);
  const r = await api(limited.baseUrl, 'POST', '/conversations', { token: tok, body: {} });
  t.match(r.body, { code: 'rate_limited', detail: /demo requests of this tenant/ });
  t.ok(Number(r.headers.get('retry-after')) >= 1);
});

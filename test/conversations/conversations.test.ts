/**
 * Conversation demo loop: text turns, audio turns as JSON and multipart (speech segments from the worker pool,
 * transcript from the simulated STT), bad and oversized WAV, anonymous expiry, tenant isolation.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { writeWav } from '../../src/audio/index.js';
import { encodeSimVoice } from '../../src/simvoice/index.js';
import { setClock, userToken } from '../helpers/lead_fixtures.js';

// tone code (SIM_SPEECH=tones): the route's contract is under test, with input the simulator transcribes exactly
const srv = await startTestServer({ env: { AUDIO_BODY_LIMIT_BYTES: String(400 * 1024), AUDIO_MAX_SECONDS: '10', SIM_SPEECH: 'tones' } });
t.teardown(() => srv.close());
const b = srv.baseUrl;
const token = await login(b);
const other = await userToken(srv, 'ten_other', 'admin@other.example', 'admin');

/** Silence, the SimVoice utterance, silence: 8 kHz mono WAV. */
function simVoiceWav(text: string, rate = 8000): Buffer {
  const speech = encodeSimVoice(text, { sampleRateHz: rate });
  const pad = new Int16Array(rate / 2);
  const pcm = new Int16Array(pad.length * 2 + speech.length);
  pcm.set(speech, pad.length);
  return Buffer.from(writeWav({ sampleRateHz: rate, channels: [pcm] }));
}

async function multipart(path: string, wav: Buffer, part = 'audio', tok?: string) {
  const form = new FormData();
  form.append(part, new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'turn.wav');
  const res = await fetch(b + path, { method: 'POST', body: form, headers: tok ? { authorization: `Bearer ${tok}` } : {} });
  return { status: res.status, body: await res.json() as any };
}

t.test('text turns: disclosure first, entities extracted, processingMs measured', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: { domain: 'realestate' } });
  t.equal(c.status, 201);
  t.match(c.body, { id: /^conv_[0-9a-f]{24}$/, domain: 'realestate', tenant_id: null, state: 'active' });
  t.ok(Date.parse(c.body.expires_at) > Date.now(), 'anonymous conversations expire');
  const r1 = await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'Hello' } });
  t.equal(r1.status, 200);
  t.match(r1.body.agent.text, /AI/, 'the opening reply carries the AI disclosure');
  t.equal(typeof r1.body.processingMs, 'number');
  t.ok(r1.body.processingMs > 0);
  const r2 = await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'My name is Ravi Kumar' } });
  t.equal(r2.body.agent.entities.customer_name, 'Ravi Kumar');
  t.same(r2.body.caller, { text: 'My name is Ravi Kumar', transcript_source: 'text' });
  const view = await api(b, 'GET', `/conversations/${c.body.id}`);
  t.same(view.body.messages.map((m: { role: string }) => m.role), ['caller', 'agent', 'caller', 'agent']);
  t.equal((await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: '' } })).status, 400);
  t.equal((await api(b, 'POST', `/conversations/${c.body.id}/turns`, { body: { text: 'x', more: 1 } })).status, 400);
});

t.test('audio turn as JSON wavBase64: segments, simulated transcript, agent reply', async (t) => {
  const c = await api(b, 'POST', '/conversations', { token, body: {} });
  const r = await api(b, 'POST', `/conversations/${c.body.id}/audio`, { token, body: { wavBase64: simVoiceWav('hello there').toString('base64') } });
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.same(r.body.caller, { text: 'hello there', transcript_source: 'stt_simulated' });
  t.ok(r.body.segments.length >= 1, 'speech detected');
  t.ok(r.body.segments[0].startMs >= 300 && r.body.segments[0].startMs <= 700, `speech starts after the 500 ms pad (${r.body.segments[0].startMs})`);
  t.match(r.body.agent.text, /AI/);
  t.match(r.body.audio, { sampleRateHz: 8000, channels: 1 });
  t.ok(r.body.processingMs > 0);
});

t.test('audio turn as multipart part "audio"; a sound that is not speech transcribes empty and says what the recogniser understands', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  const r = await multipart(`/conversations/${c.body.id}/audio`, simVoiceWav('my name is Anna', 16000));
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.caller.text, 'my name is Anna');
  const noise = new Int16Array(8000);
  for (let i = 0; i < noise.length; i++) noise[i] = Math.round(Math.sin(i / 3) * 3000);
  const r2 = await multipart(`/conversations/${c.body.id}/audio`, Buffer.from(writeWav({ sampleRateHz: 8000, channels: [noise] })));
  t.equal(r2.status, 200, JSON.stringify(r2.body));
  t.equal(r2.body.caller.text, '');
  t.match(r2.body.caller.note, /offline grammar recogniser understands names/);
  t.equal((await multipart(`/conversations/${c.body.id}/audio`, simVoiceWav('hi'), 'file')).body.code, 'validation_failed', 'wrong part name');
});

t.test('bad WAV -> 422 with the audio error code; oversized -> 413', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  const path = `/conversations/${c.body.id}/audio`;
  const notWav = await api(b, 'POST', path, { body: { wavBase64: Buffer.from('RIFX....WAVEjunkjunkjunk').toString('base64') } });
  t.equal(notWav.status, 422);
  t.equal(notWav.body.code, 'unprocessable_audio');
  t.ok(['wav_malformed', 'wav_unsupported'].includes(notWav.body.audio_error), notWav.body.audio_error);
  const trunc = await multipart(path, simVoiceWav('hello').subarray(0, 30));
  t.equal(trunc.status, 422);
  t.equal(trunc.body.audio_error, 'wav_truncated');
  const long = Buffer.from(writeWav({ sampleRateHz: 8000, channels: [new Int16Array(8000 * 11)] }));
  const tooLong = await multipart(path, long);
  t.equal(tooLong.status, 422, 'longer than AUDIO_MAX_SECONDS');
  t.equal(tooLong.body.audio_error, 'audio_too_long');
  const huge = Buffer.from(writeWav({ sampleRateHz: 16000, channels: [new Int16Array(16000 * 14)] }));
  t.equal((await multipart(path, huge)).status, 413, 'multipart over AUDIO_BODY_LIMIT_BYTES');
  t.equal((await api(b, 'POST', path, { body: { wavBase64: huge.toString('base64') } })).status, 413, 'JSON over the limit');
  t.equal((await api(b, 'POST', path, { body: { wavBase64: '!!!not base64' } })).status, 400);
});

t.test('anonymous conversations expire (410); tenant conversations are the tenant\'s only', async (t) => {
  const anon = await api(b, 'POST', '/conversations', { body: {} });
  const mine = await api(b, 'POST', '/conversations', { token, body: { domain: 'x' } });
  t.equal(mine.body.tenant_id, 'ten_dev');
  t.equal(mine.body.expires_at, null);
  t.equal((await api(b, 'GET', `/conversations/${mine.body.id}`, { token: other })).status, 404);
  t.equal((await api(b, 'POST', `/conversations/${mine.body.id}/turns`, { token: other, body: { text: 'hi' } })).status, 404);
  t.equal((await api(b, 'POST', `/conversations/${mine.body.id}/turns`, { body: { text: 'hi' } })).status, 404, 'anonymous caller');
  t.equal((await api(b, 'POST', `/conversations/${anon.body.id}/turns`, { token, body: { text: 'hi' } })).status, 404, 'a JWT does not reach anonymous ones');
  t.equal((await api(b, 'POST', '/conversations', { headers: { authorization: 'Bearer bad.token.here' }, body: {} })).status, 401);
  setClock(srv, new Date(Date.parse(anon.body.expires_at) + 1000).toISOString());
  t.equal((await api(b, 'POST', `/conversations/${anon.body.id}/turns`, { body: { text: 'hi' } })).body.code, 'gone');
  t.equal((await api(b, 'GET', `/conversations/${mine.body.id}`, { token })).status, 200, 'tenant conversations do not expire');
  t.equal((await api(b, 'GET', '/conversations/conv_000000000000000000000000')).status, 404);
  const next = await api(b, 'POST', '/conversations', { body: {} });
  t.equal(next.status, 201);
  t.equal((await api(b, 'GET', `/conversations/${anon.body.id}`)).status, 404, 'expired anonymous conversations are purged by later anonymous creates');
  t.equal((await api(b, 'GET', `/conversations/${mine.body.id}`, { token })).status, 200);
});

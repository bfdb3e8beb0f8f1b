/**
 * The demo loop's audio turn with STT_PROVIDER=openai: the WAV goes through the configured speech-to-text (the
 * transcription fake), the reply answers what it returned, GET /v1/integrations reports the slot live, and a
 * failing endpoint is a problem+json with a stable code, never a crash or an invented transcript.
 */
import t from 'tap';
import { startTestServer, api, login } from '../helpers/server.js';
import { writeWav } from '../../src/audio/index.js';
import { startFakeTranscription } from '../fakes/openai_transcription.js';

const KEY = 'sk-test-transcription';
const fake = await startFakeTranscription({ apiKey: KEY, script: ['my budget is eighty lakh'] });
t.teardown(() => fake.close());
const srv = await startTestServer({
  env: { STT_PROVIDER: 'openai', OPENAI_API_KEY: KEY, OPENAI_BASE_URL: fake.baseUrl, OPENAI_STT_MODEL: 'whisper-1', ADAPTER_TIMEOUT_MS: '4000' },
});
t.teardown(() => srv.close());
const b = srv.baseUrl;

/** Half a second of quiet, a second of "speech" (a tone: the fake cannot listen anyway), half a second of quiet. */
function speechWav(rate = 16000): Buffer {
  const pcm = new Int16Array(rate * 2);
  for (let i = rate / 2; i < rate * 1.5; i++) pcm[i] = Math.round(4000 * Math.sin((2 * Math.PI * 220 * i) / rate));
  return Buffer.from(writeWav({ sampleRateHz: rate, channels: [pcm] }));
}

async function audioTurn(id: string, wav: Buffer) {
  const form = new FormData();
  form.append('audio', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'turn.wav');
  const res = await fetch(`${b}/conversations/${id}/audio`, { method: 'POST', body: form });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() as any };
}

t.test('an audio turn is transcribed by the configured endpoint and answered', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: { domain: 'realestate' } });
  t.equal(c.status, 201);
  const r = await audioTurn(c.body.id, speechWav());
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.match(r.body.caller, { text: 'my budget is eighty lakh', transcript_source: 'stt_adapter' });
  t.notOk(r.body.caller.note, 'no simulator note');
  t.ok(r.body.agent.text.length > 0, 'the agent answers the words');
  t.equal(fake.requests.length, 1);
  t.match(fake.requests[0], { model: 'whisper-1', language: 'en', sampleRateHz: 16000, channels: 1, durationMs: 2000 });
  const integrations = await api(b, 'GET', '/integrations', { token: await login(b) });
  t.equal(integrations.status, 200);
  t.match(integrations.body.data.find((s: any) => s.slot === 'speech_to_text'), { provider: 'openai', mode: 'live' }, 'reported live');
});

t.test('a failing endpoint: 503 problem+json with the STT error, after the retries', async (t) => {
  const c = await api(b, 'POST', '/conversations', { body: {} });
  const before = fake.attempts.length;
  fake.fail({ status: 500 }, { status: 500 }, { status: 500 });
  const r = await audioTurn(c.body.id, speechWav(8000));
  t.equal(r.status, 503, JSON.stringify(r.body));
  t.match(r.type, /application\/problem\+json/);
  t.match(r.body, { code: 'unavailable', stt_error: 'unavailable', retryable: true });
  t.equal(fake.attempts.length - before, 3);
  const view = await api(b, 'GET', `/conversations/${c.body.id}`);
  t.equal(view.body.messages.length, 0, 'no turn recorded for words nobody heard');
});

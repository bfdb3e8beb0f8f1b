/**
 * The OpenAI-compatible transcription adapter against a local multipart fake: what is sent (WAV, model,
 * language), whole utterances and the call fallback stream, 401, 400, 429 with retry-after(-ms), 5xx retries,
 * a retry-after past the deadline, timeouts, aborts and a 200 without text.
 */
import t, { type Test } from 'tap';
import { OpenAiStt } from '../../src/providers/openai_stt/index.js';
import { isoLanguage } from '../../src/providers/openai_stt/adapter.js';
import { retryAfterMs } from '../../src/providers/http/retry.js';
import { AdapterError } from '../../src/adapters/types.js';
import { createLogger } from '../../src/log.js';
import { startFakeTranscription } from '../fakes/openai_transcription.js';

const KEY = 'sk-test-transcription';
const log = createLogger('silent');

function tone(ms: number, rate = 8000): Int16Array {
  const pcm = new Int16Array((rate * ms) / 1000);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 440 * i) / rate));
  return pcm;
}

async function setup(t: Test, opts: Parameters<typeof startFakeTranscription>[0] = {}, key = KEY) {
  const fake = await startFakeTranscription({ apiKey: KEY, ...opts });
  t.teardown(() => fake.close());
  return { fake, stt: new OpenAiStt({ apiKey: key, baseUrl: fake.baseUrl, model: 'whisper-1', log }) };
}

const rejectsWith = async (t: Test, p: Promise<unknown>, code: AdapterError['code'], retryable?: boolean) => {
  const err = await p.then(() => undefined, (e: unknown) => e);
  t.ok(err instanceof AdapterError, `rejects with an AdapterError (${String(err)})`);
  t.equal((err as AdapterError).code, code);
  t.equal((err as AdapterError).adapter, 'stt');
  if (retryable !== undefined) t.equal((err as AdapterError).retryable, retryable);
  return err as AdapterError;
};

t.test('a whole utterance is sent as a WAV with model and language, and its text comes back', async (t) => {
  const { fake, stt } = await setup(t, { script: [' my budget is eighty lakh '] });
  const r = await stt.transcribe(tone(1200), { language: 'en-IN', sampleRateHz: 8000 });
  t.match(r, { text: 'my budget is eighty lakh', final: true, startMs: 0, endMs: 1200 });
  t.equal(fake.requests.length, 1);
  t.match(fake.requests[0], { model: 'whisper-1', language: 'en', responseFormat: 'json', sampleRateHz: 8000, channels: 1, bitsPerSample: 16, durationMs: 1200, contentType: 'audio/wav' });
  const wide = await stt.transcribe(tone(500, 16000), { language: 'hi', sampleRateHz: 16000 });
  t.equal(wide.endMs, 500);
  t.match(fake.requests[1], { sampleRateHz: 16000, language: 'hi', durationMs: 500 });
});

t.test('digital silence is not sent (Whisper would invent words for it)', async (t) => {
  const { fake, stt } = await setup(t, { script: ['Thank you.'] });
  const r = await stt.transcribe(new Int16Array(8000), { language: 'en', sampleRateHz: 8000 });
  t.equal(r.text, '');
  t.equal(fake.requests.length, 0);
});

t.test('a wrong key is a non-retryable failure, tried once', async (t) => {
  const { fake, stt } = await setup(t, {}, 'sk-wrong');
  const err = await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 }), 'failed', false);
  t.match(err.message, /401.*Incorrect API key.*OPENAI_API_KEY/);
  t.notMatch(err.message, /sk-wrong/, 'the key is not in the message');
  t.equal(fake.attempts.length, 1);
});

t.test('a 400 is invalid and not retried', async (t) => {
  const { fake, stt } = await setup(t);
  fake.fail({ status: 400, body: { error: { message: 'Audio file is too short', type: 'invalid_request_error', param: 'file', code: null } } });
  const err = await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 }), 'invalid', false);
  t.match(err.message, /too short/);
  t.equal(fake.attempts.length, 1);
});

t.test('429 waits retry-after-ms, then retry-after seconds, and succeeds', async (t) => {
  const { fake, stt } = await setup(t, { script: ['yes'] });
  fake.fail({ status: 429, headers: { 'retry-after-ms': '120' } }, { status: 429, headers: { 'retry-after': '0.2' } });
  const r = await stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000, timeoutMs: 5000 });
  t.equal(r.text, 'yes');
  t.equal(fake.attempts.length, 3);
  t.ok(fake.attempts[1].at - fake.attempts[0].at >= 110, `waited ${fake.attempts[1].at - fake.attempts[0].at} ms for retry-after-ms 120`);
  t.ok(fake.attempts[2].at - fake.attempts[1].at >= 190, `waited ${fake.attempts[2].at - fake.attempts[1].at} ms for retry-after 0.2`);
});

t.test('5xx is retried twice, then fails as unavailable (retryable)', async (t) => {
  const { fake, stt } = await setup(t, { script: ['ok'] });
  fake.fail({ status: 500 }, { status: 503 });
  t.equal((await stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 })).text, 'ok', 'two failures then success');
  fake.fail({ status: 502 }, { status: 503 }, { status: 500 });
  const before = fake.attempts.length;
  const err = await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 }), 'unavailable', true);
  t.match(err.message, /500/);
  t.equal(fake.attempts.length - before, 3, 'one try and two retries');
});

t.test('x-should-retry: false stops retries; a retry-after past the deadline fails at once', async (t) => {
  const { fake, stt } = await setup(t, { script: ['ok'] });
  fake.fail({ status: 503, headers: { 'x-should-retry': 'false' } });
  await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 }), 'unavailable');
  t.equal(fake.attempts.length, 1);
  fake.fail({ status: 429, headers: { 'retry-after': '30' } });
  const t0 = performance.now();
  const err = await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000, timeoutMs: 2000 }), 'unavailable', true);
  t.ok(performance.now() - t0 < 1000, 'did not sit out the 30 s');
  t.match(err.message, /429/);
});

t.test('a slow endpoint times out; an abort cancels', async (t) => {
  const { stt } = await setup(t, { script: ['late'], latencyMs: 600 });
  await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000, timeoutMs: 100 }), 'timeout', true);
  const ac = new AbortController();
  const p = stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000, signal: ac.signal });
  setTimeout(() => ac.abort(), 50);
  await rejectsWith(t, p, 'canceled');
});

t.test('a 200 without a text field is a failure, not an empty transcript', async (t) => {
  const { fake, stt } = await setup(t);
  fake.fail({ status: 200, body: { transcript: 'wrong shape' } });
  await rejectsWith(t, stt.transcribe(tone(300), { language: 'en', sampleRateHz: 8000 }), 'failed', false);
});

t.test('the call fallback stream sends the audio since the last finalize', async (t) => {
  const { fake, stt } = await setup(t, { script: ['hello there', 'my budget is eighty lakh'] });
  const s = stt.open({ callId: 'call_1', language: 'en-US', sampleRateHz: 8000 });
  const heard: unknown[] = [];
  s.onResult((r) => heard.push(r));
  const frame = tone(20);
  for (let i = 0; i < 50; i++) s.write(frame, i * 20);
  const first = await s.finalize({ timeoutMs: 2000 });
  t.match(first, { text: 'hello there', final: true, startMs: 0, endMs: 1000 });
  for (let i = 50; i < 125; i++) s.write(frame, i * 20);
  const second = await s.finalize();
  t.match(second, { text: 'my budget is eighty lakh', startMs: 1000, endMs: 2500 });
  t.same(fake.requests.map((r) => r.durationMs), [1000, 1500], 'each turn sends only its own audio');
  t.equal(heard.length, 2, 'finals go to the listeners');
  s.close();
  await rejectsWith(t, s.finalize(), 'canceled');
});

t.test('the fallback stream sends from a second before the first loud frame, not the whole wait', async (t) => {
  const { fake, stt } = await setup(t, { script: ['yes'] });
  const s = stt.open({ callId: 'c', language: 'en', sampleRateHz: 8000 });
  const hiss = new Int16Array(160).map((_, i) => (i % 2 ? 40 : -40));
  let at = 0;
  for (let i = 0; i < 400; i++, at += 20) s.write(hiss, at); // 8 s of line noise while the agent talks
  for (let i = 0; i < 25; i++, at += 20) s.write(tone(20), at); // 0.5 s of speech
  for (let i = 0; i < 20; i++, at += 20) s.write(hiss, at);
  const r = await s.finalize();
  t.equal(fake.requests[0].durationMs, 1000 + 500 + 400);
  t.match(r, { text: 'yes', startMs: 7000, endMs: 8900 });
  for (let i = 0; i < 50; i++, at += 20) s.write(hiss, at); // only noise: sent whole (no words are guessed away)
  await s.finalize();
  t.equal(fake.requests[1].durationMs, 1000);
});

t.test('the fallback stream keeps at most its bound of audio', async (t) => {
  const { fake } = await setup(t, { script: ['x'] });
  const stt = new OpenAiStt({ apiKey: KEY, baseUrl: fake.baseUrl, model: 'm', log, maxUtteranceSeconds: 1 });
  const s = stt.open({ callId: 'c', language: 'en', sampleRateHz: 8000 });
  for (let i = 0; i < 150; i++) s.write(tone(20), i * 20); // 3 s
  const r = await s.finalize();
  t.equal(fake.requests[0].durationMs, 1000);
  t.match(r, { startMs: 2000, endMs: 3000 });
});

t.test('helpers: language tags and retry-after forms', async (t) => {
  t.equal(isoLanguage('en-IN'), 'en');
  t.equal(isoLanguage('HI'), 'hi');
  t.equal(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' })), 250);
  t.equal(retryAfterMs(new Headers({ 'retry-after': '2' })), 2000);
  t.equal(retryAfterMs(new Headers({ 'retry-after': new Date(10_000).toUTCString() }), 7_000), 3000);
  t.equal(retryAfterMs(new Headers({ 'retry-after': 'soon' })), undefined);
  t.equal(retryAfterMs(new Headers()), undefined);
});

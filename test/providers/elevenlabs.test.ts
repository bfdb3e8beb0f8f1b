/**
 * ElevenLabs HTTP streaming against a local fake of the documented endpoint: telephone mu-law and PCM as the
 * provider sends them, the agent's voice or the default one, and every failure: 401, 429 then success, 5xx,
 * a stream that stalls mid-way, an abort mid-stream that the fake sees as a request gone away.
 */
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config.js';
import { createAdapters, AdapterError } from '../../src/adapters/index.js';
import { createLogger } from '../../src/log.js';
import { ElevenLabsTts } from '../../src/providers/elevenlabs/tts.js';
import { startElevenLabsFake } from '../fakes/elevenlabs.js';
import { mulawBytes, toneVoice } from '../fakes/g711.js';

const KEY = 'sk_test_elevenlabs';
const DEFAULT_VOICE = 'JBFqnCBsd6RMkjVDRZzb';
const log = createLogger('silent');

async function setup(t: Test, opts: { chunkBytes?: number; chunkGapMs?: number } = {}) {
  const fake = await startElevenLabsFake({ apiKey: KEY, ...opts });
  t.teardown(() => fake.close());
  const tts = new ElevenLabsTts({ apiKey: KEY, baseUrl: fake.url, voiceId: DEFAULT_VOICE, modelId: 'eleven_flash_v2_5', log });
  return { fake, tts };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of it) out.push(c);
  return out;
}

const bytesOf = (chunks: Uint8Array[]) => Buffer.concat(chunks.map((c) => Buffer.from(c)));

t.test('mu-law 8 kHz streams straight through, with the key, the model and the default voice', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 333 });
  const text = 'Hello, this is Priya from Acme.';
  const got = bytesOf(await collect(tts.synthesizeMulaw({ text, voice: 'alloy', language: 'en-US' })));
  t.same(got, Buffer.from(mulawBytes(toneVoice(text, 8000))), 'the bytes the provider sent, untouched');
  const r = fake.requests[0];
  t.equal(r.outputFormat, 'ulaw_8000');
  t.equal(r.apiKey, KEY);
  t.equal(r.voiceId, DEFAULT_VOICE, '"alloy" is not an ElevenLabs voice id: the configured default is used');
  t.same(r.body, { text, model_id: 'eleven_flash_v2_5' });
});

t.test("the agent's own ElevenLabs voice id wins over the default", async (t) => {
  const { fake, tts } = await setup(t);
  await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: '21m00Tcm4TlvDq8ikWAM', language: 'en' }));
  t.equal(fake.requests[0].voiceId, '21m00Tcm4TlvDq8ikWAM');
});

t.test('PCM16 at 16 kHz: samples split across odd-sized chunks come back whole', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 333 });
  const text = 'Namaste.';
  const chunks = await collect(tts.synthesize({ text, voice: 'alloy', language: 'hi-IN', sampleRateHz: 16000 }));
  const pcm = Int16Array.from(chunks.flatMap((c) => [...c]));
  t.equal(fake.requests[0].outputFormat, 'pcm_16000');
  t.same([...pcm], [...toneVoice(text, 16000)]);
});

t.test('a rate ElevenLabs does not render is asked at the next one up and resampled', async (t) => {
  const { fake, tts } = await setup(t);
  const chunks = await collect(tts.synthesize({ text: 'Okay then.', voice: 'alloy', language: 'en', sampleRateHz: 11025 }));
  t.equal(fake.requests[0].outputFormat, 'pcm_16000');
  const n = chunks.reduce((s, c) => s + c.length, 0);
  const expected = (toneVoice('Okay then.', 16000).length * 11025) / 16000;
  t.ok(Math.abs(n - expected) < 64, `about ${Math.round(expected)} samples at 11025 Hz (${n})`);
});

t.test('401: failed, not retried, the provider message kept', async (t) => {
  const { fake } = await setup(t);
  const bad = new ElevenLabsTts({ apiKey: 'wrong', baseUrl: fake.url, voiceId: DEFAULT_VOICE, modelId: 'eleven_flash_v2_5', log });
  const err = await collect(bad.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' })).catch((e) => e);
  t.ok(err instanceof AdapterError);
  t.match(err, { adapter: 'tts', code: 'failed', retryable: false, message: /401: Invalid API key/ });
  t.equal(fake.requests.length, 1);
});

t.test('429 with retry-after, then audio: retried once before any audio', async (t) => {
  const { fake, tts } = await setup(t);
  fake.failNext({ status: 429, retryAfter: '0' });
  const got = bytesOf(await collect(tts.synthesizeMulaw({ text: 'Hi there.', voice: 'x', language: 'en' })));
  t.equal(got.length, mulawBytes(toneVoice('Hi there.', 8000)).length);
  t.equal(fake.requests.length, 2);
});

t.test('5xx twice: unavailable (retryable) after one retry', async (t) => {
  const { fake, tts } = await setup(t);
  fake.failNext({ status: 500 }, { status: 503 });
  const err = await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' })).catch((e) => e);
  t.match(err, { code: 'unavailable', retryable: true, message: /503/ });
  t.equal(fake.requests.length, 2);
});

t.test('a stream that stalls mid-way fails with timeout and the request is cancelled', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 400 });
  fake.stallNextAfter(800);
  const got: Uint8Array[] = [];
  const started = Date.now();
  const err = await (async () => { for await (const c of tts.synthesizeMulaw({ text: 'A long sentence that stalls.', voice: 'x', language: 'en' }, { timeoutMs: 200 })) got.push(c); })().catch((e) => e);
  t.match(err, { adapter: 'tts', code: 'timeout' });
  t.equal(bytesOf(got).length, 800, 'what came before the stall was delivered');
  t.ok(Date.now() - started < 2000, 'failed at the stall deadline');
  const r = await fake.settled(0);
  t.equal(r.aborted, true, 'the fake saw the client go away');
  t.equal(fake.requests.length, 1, 'a stall after audio is not retried');
});

t.test('abort mid-stream (barge-in): the iteration stops and the fake sees the request cancelled', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 160, chunkGapMs: 20 });
  const ctl = new AbortController();
  let chunks = 0;
  const err = await (async () => {
    for await (const _ of tts.synthesizeMulaw({ text: 'This reply is long enough to be cut by the caller.', voice: 'x', language: 'en' }, { signal: ctl.signal })) {
      if (++chunks === 2) ctl.abort();
    }
  })().catch((e) => e);
  t.match(err, { code: 'canceled' });
  const abortedAt = Date.now();
  const r = await fake.settled(0);
  t.ok(Date.now() - abortedAt < 1500, 'cancelled long before the stream (3 s) would have ended');
  t.equal(r.aborted, true);
  t.ok(r.bytesSent < mulawBytes(toneVoice('This reply is long enough to be cut by the caller.', 8000)).length, 'the rest was never sent');
});

t.test('TTS_PROVIDER=elevenlabs: createAdapters runs it live and keeps the mu-law path under the deadlines', async (t) => {
  const { fake } = await setup(t);
  const set = createAdapters(loadConfig({ TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: KEY, ELEVENLABS_VOICE_ID: DEFAULT_VOICE, ELEVENLABS_API_URL: fake.url }));
  t.teardown(() => set.close());
  t.equal(set.modes.tts, 'live');
  t.ok(set.tts.synthesizeMulaw, 'the wrapped adapter still renders telephone audio itself');
  const got = bytesOf(await collect(set.tts.synthesizeMulaw!({ text: 'Hi.', voice: 'x', language: 'en' })));
  t.equal(got.length, mulawBytes(toneVoice('Hi.', 8000)).length);
});

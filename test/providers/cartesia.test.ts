/**
 * Cartesia's WebSocket against a local fake of the documented protocol: contexts multiplexed on one socket,
 * mu-law and PCM output, the agent's voice or the default, and every failure: a refused key, error messages,
 * a stall, an abort (the fake receives {context_id, cancel:true}), a socket that drops mid-stream or before audio.
 */
import t, { type Test } from 'tap';
import { AdapterError } from '../../src/adapters/index.js';
import { createLogger } from '../../src/log.js';
import { CartesiaTts } from '../../src/providers/cartesia/tts.js';
import { startCartesiaFake, type CartesiaFakeOptions } from '../fakes/cartesia.js';
import { mulawBytes, toneVoice } from '../fakes/g711.js';

const KEY = 'sk_car_test';
const DEFAULT_VOICE = 'f786b574-daa5-4673-aa0c-cbe3e8534c02';
const log = createLogger('silent');

async function setup(t: Test, opts: Partial<CartesiaFakeOptions> = {}, key = KEY) {
  const fake = await startCartesiaFake({ apiKey: KEY, ...opts });
  const tts = new CartesiaTts({ apiKey: key, url: fake.url, voiceId: DEFAULT_VOICE, modelId: 'sonic-2', version: '2026-03-01', log });
  t.teardown(async () => { await tts.close(); await fake.close(); });
  return { fake, tts };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const c of it) out.push(c);
  return out;
}
const bytesOf = (chunks: Uint8Array[]) => Buffer.concat(chunks.map((c) => Buffer.from(c)));

t.test('mu-law 8 kHz context: the documented request, the audio as sent, the version header', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 333 });
  const text = 'Namaste! Main Priya bol rahi hoon.';
  const got = bytesOf(await collect(tts.synthesizeMulaw({ text, voice: 'alloy', language: 'hi-IN' })));
  t.same(got, Buffer.from(mulawBytes(toneVoice(text, 8000))));
  const [ctx] = [...fake.contexts.values()];
  t.match(ctx.request, { model_id: 'sonic-2', transcript: text, voice: { mode: 'id', id: DEFAULT_VOICE }, continue: false, language: 'hi',
    output_format: { container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 } });
  t.equal(ctx.done, true);
  t.same(fake.connections.versions, ['2026-03-01']);
});

t.test("the agent's Cartesia voice id wins; concurrent syntheses share one socket", async (t) => {
  const { fake, tts } = await setup(t, { chunkGapMs: 2 });
  const voice = 'a0e99841-438c-4a64-b679-ae501e7d6091';
  const [a, b] = await Promise.all([
    collect(tts.synthesizeMulaw({ text: 'First caller.', voice, language: 'en' })),
    collect(tts.synthesizeMulaw({ text: 'Second caller, longer.', voice: 'alloy', language: 'en' })),
  ]);
  t.equal(bytesOf(a).length, toneVoice('First caller.', 8000).length);
  t.equal(bytesOf(b).length, toneVoice('Second caller, longer.', 8000).length);
  t.equal(fake.connections.accepted, 1, 'one socket, two contexts');
  t.same([...fake.contexts.values()].map((c) => c.request.voice.id).sort(), [voice, DEFAULT_VOICE].sort());
});

t.test('PCM16 16 kHz (pcm_s16le): samples split across odd chunks come back whole', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 77 });
  const chunks = await collect(tts.synthesize({ text: 'Hello.', voice: 'x', language: 'en', sampleRateHz: 16000 }));
  t.same([...Int16Array.from(chunks.flatMap((c) => [...c]))], [...toneVoice('Hello.', 16000)]);
  t.match([...fake.contexts.values()][0].request.output_format, { encoding: 'pcm_s16le', sample_rate: 16000 });
});

t.test('a refused key fails the synthesis (not retryable)', async (t) => {
  const { fake, tts } = await setup(t, {}, 'wrong-key');
  const err = await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' })).catch((e) => e);
  t.ok(err instanceof AdapterError);
  t.match(err, { code: 'failed', retryable: false, message: /401/ });
  t.equal(fake.connections.refused, 1);
});

t.test('error messages: 429 is unavailable (retryable), 400 is invalid; the socket stays usable', async (t) => {
  const { fake, tts } = await setup(t);
  fake.injectNext({ kind: 'error', status: 429 });
  t.match(await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' })).catch((e) => e), { code: 'unavailable', retryable: true, message: /429/ });
  fake.injectNext({ kind: 'error', status: 400 });
  t.match(await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' })).catch((e) => e), { code: 'invalid', message: /400/ });
  t.equal(bytesOf(await collect(tts.synthesizeMulaw({ text: 'Hi.', voice: 'x', language: 'en' }))).length, toneVoice('Hi.', 8000).length);
  t.equal(fake.connections.accepted, 1);
});

t.test('a stall fails with timeout and cancels the context', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 400 });
  fake.injectNext({ kind: 'stall', afterBytes: 800 });
  const got: Uint8Array[] = [];
  const err = await (async () => { for await (const c of tts.synthesizeMulaw({ text: 'This one stalls half way.', voice: 'x', language: 'en' }, { timeoutMs: 150 })) got.push(c); })().catch((e) => e);
  t.match(err, { code: 'timeout' });
  t.equal(bytesOf(got).length, 800);
  const [id] = fake.contexts.keys();
  await fake.canceled(id);
  t.equal(fake.contexts.get(id)!.canceled, true, 'the fake received {context_id, cancel: true}');
});

t.test('abort mid-stream (barge-in) sends cancel for the context, and no more audio comes', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 160, chunkGapMs: 20 });
  const ctl = new AbortController();
  let n = 0;
  const text = 'A reply long enough for the caller to talk over it.';
  const err = await (async () => {
    for await (const _ of tts.synthesizeMulaw({ text, voice: 'x', language: 'en' }, { signal: ctl.signal })) if (++n === 2) ctl.abort();
  })().catch((e) => e);
  t.match(err, { code: 'canceled' });
  const [id] = fake.contexts.keys();
  const t0 = Date.now();
  await fake.canceled(id);
  t.ok(Date.now() - t0 < 1500, 'the cancel arrived long before the stream (3 s) would have ended');
  await new Promise((r) => setTimeout(r, 60));
  t.ok(fake.contexts.get(id)!.bytesSent < toneVoice(text, 8000).length, 'the rest was never generated');
});

t.test('a socket that drops mid-stream fails that synthesis; the next one reconnects', async (t) => {
  const { fake, tts } = await setup(t, { chunkBytes: 400 });
  fake.injectNext({ kind: 'drop', afterBytes: 800 });
  const err = await collect(tts.synthesizeMulaw({ text: 'Dropped in the middle of it.', voice: 'x', language: 'en' })).catch((e) => e);
  t.match(err, { code: 'unavailable', message: /socket closed/ });
  const again = bytesOf(await collect(tts.synthesizeMulaw({ text: 'Back again.', voice: 'x', language: 'en' })));
  t.equal(again.length, toneVoice('Back again.', 8000).length);
  t.equal(fake.connections.accepted, 2);
});

t.test('a socket that drops before any audio: the context is sent again on a new socket', async (t) => {
  const { fake, tts } = await setup(t);
  fake.injectNext({ kind: 'drop', afterBytes: 0 });
  const got = bytesOf(await collect(tts.synthesizeMulaw({ text: 'Said once.', voice: 'x', language: 'en' })));
  t.equal(got.length, toneVoice('Said once.', 8000).length, 'the caller hears it whole');
  t.equal(fake.connections.accepted, 2);
});

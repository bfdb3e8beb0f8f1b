/**
 * Deepgram with the OpenAI-compatible endpoint standing by: a healthy Deepgram answers every turn (the backup
 * sends nothing), a refused Deepgram key leaves the call listening through the transcription fake, turn by turn
 * with only each turn's audio, and a deadline is passed on rather than failed over.
 */
import t, { type Test } from 'tap';
import { STT_PROVIDERS } from '../../src/providers/index.js';
import { DeepgramStt } from '../../src/providers/deepgram/index.js';
import { FailoverStt } from '../../src/providers/stt_failover.js';
import type { Config } from '../../src/config.js';
import type { SttStream } from '../../src/adapters/types.js';
import { createLogger } from '../../src/log.js';
import { startFakeDeepgram } from '../fakes/deepgram.js';
import { startFakeTranscription } from '../fakes/openai_transcription.js';

const log = createLogger('silent');

async function setup(t: Test, deepgramKey: string) {
  const dg = await startFakeDeepgram({ apiKey: 'dg-key', script: ['from deepgram one', 'from deepgram two'] });
  const oa = await startFakeTranscription({ apiKey: 'sk-key', script: ['from whisper one', 'from whisper two'] });
  t.teardown(async () => { await dg.close(); await oa.close(); });
  const config = {
    STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: deepgramKey, DEEPGRAM_API_URL: dg.url, DEEPGRAM_MODEL: 'nova-3',
    OPENAI_API_KEY: 'sk-key', OPENAI_BASE_URL: oa.baseUrl, OPENAI_STT_MODEL: 'whisper-1',
  } as unknown as Config;
  return { dg, oa, stt: STT_PROVIDERS.deepgram({ config, log }), config };
}

function play(s: SttStream, pattern: string, from: number): number {
  let at = from;
  for (const ch of pattern) for (let f = 0; f < 5; f++, at += 20) {
    const pcm = new Int16Array(160);
    if (ch === 's') for (let i = 0; i < 160; i++) pcm[i] = Math.round(3000 * Math.sin((2 * Math.PI * 300 * i) / 8000));
    s.write(pcm, at);
  }
  return at;
}

t.test('the factory stands the transcription endpoint by only when its key is set', async (t) => {
  const { stt, config } = await setup(t, 'dg-key');
  t.ok(stt instanceof FailoverStt);
  t.ok(STT_PROVIDERS.deepgram({ config: { ...config, OPENAI_API_KEY: undefined }, log }) instanceof DeepgramStt);
  t.ok('openai' in STT_PROVIDERS);
});

t.test('a healthy Deepgram answers; the backup sends nothing', async (t) => {
  const { oa, stt } = await setup(t, 'dg-key');
  const s = stt.open({ callId: 'c1', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  let at = play(s, '_ss_____', 0);
  t.equal((await s.finalize({ timeoutMs: 3000 })).text, 'from deepgram one');
  at = play(s, '_ss_____', at);
  t.equal((await s.finalize({ timeoutMs: 3000 })).text, 'from deepgram two');
  t.equal(oa.requests.length, 0);
});

t.test('a refused Deepgram key: every turn is transcribed from its own audio by the backup', async (t) => {
  const { dg, oa, stt } = await setup(t, 'dg-wrong');
  const s = stt.open({ callId: 'c2', language: 'en-IN', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  let at = play(s, '_ss_____', 0);
  t.equal((await s.finalize({ timeoutMs: 3000 })).text, 'from whisper one');
  at = play(s, '____sss___', at);
  t.equal((await s.finalize({ timeoutMs: 3000 })).text, 'from whisper two');
  t.same(dg.refusals, [401], 'Deepgram tried once');
  t.same(oa.requests.map((r) => r.durationMs), [800, 1000], 'each turn sends its own audio');
  t.equal(oa.requests[0].language, 'en');
  const whole = await stt.transcribe(new Int16Array(8000).fill(2000), { language: 'en', sampleRateHz: 8000 });
  t.equal(whole.text, 'from whisper two', 'whole utterances fail over too');
});

t.test('a turn that ends while the one before is still with Deepgram: each fails over with its own audio', async (t) => {
  const { oa, stt } = await setup(t, 'dg-wrong');
  const s = stt.open({ callId: 'c4', language: 'en-IN', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  let at = play(s, '_ss_____', 0);
  const first = s.finalize({ timeoutMs: 3000 }); // the session asks at each turn's end, not once the turn before is heard
  at = play(s, '____sss___', at);
  const second = s.finalize({ timeoutMs: 3000 });
  // the two requests race to the fake, which answers in arrival order
  t.same([(await first).text, (await second).text].sort(), ['from whisper one', 'from whisper two'], 'both turns heard');
  t.same(oa.requests.map((r) => r.durationMs).sort((a, b) => a - b), [800, 1000], 'each turn sent its own audio, not the two together');
});

t.test('a deadline is passed on, not failed over', async (t) => {
  const dg = await startFakeDeepgram({ apiKey: 'dg-key', script: ['late words'], finalLatencyMs: 300 });
  const oa = await startFakeTranscription({ apiKey: 'sk-key', script: ['never'] });
  t.teardown(async () => { await dg.close(); await oa.close(); });
  const backup = (await import('../../src/providers/openai_stt/index.js')).OpenAiStt;
  const stt = new FailoverStt(new DeepgramStt({ apiKey: 'dg-key', url: dg.url, model: 'nova-3', log }),
    new backup({ apiKey: 'sk-key', baseUrl: oa.baseUrl, model: 'whisper-1', log }), log);
  const s = stt.open({ callId: 'c3', language: 'en-US', sampleRateHz: 8000 });
  t.teardown(() => s.close());
  play(s, '_ss___', 0);
  await t.rejects(s.finalize({ timeoutMs: 50 }), { code: 'timeout' });
  t.equal(oa.requests.length, 0);
});

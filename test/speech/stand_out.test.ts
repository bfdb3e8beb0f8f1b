/**
 * Words must rise out of the line's noise (src/speech/ears/stand_out.ts): noise alone is rejected whatever the
 * grammar, a spoken answer in the same noise is not; frame powers fed in pieces are the whole turn's.
 */
import t from 'tap';
import { mulawDecode, mulawEncode, resample } from '../../src/audio/index.js';
import { recognise } from '../../src/speech/ears/recogniser.js';
import { FramePowers } from '../../src/speech/ears/stand_out.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { OfflineTts } from '../../src/speech/voice/tts.js';
import { colouredNoise, type NoiseColour } from '../../bench/audio_noise.js';

t.teardown(closeSpeechPool);

const noise = (colour: NoiseColour, seed: number, n = 16_000) => Int16Array.from(colouredNoise(colour, n, seed, 8000), (v) => Math.round(v * 1500));

t.test('two seconds of noise are no answer, with every field open or one asked', async (t) => {
  for (const colour of ['white', 'pink', 'brown'] as const) {
    for (const seed of [1, 2, 3]) {
      for (const hint of [undefined, { asking: 'budget', open: ['budget'] }, { open: [], yesNo: true }]) {
        const r = await recognise(noise(colour, seed), 8000, hint);
        t.same({ text: r.text, rejected: r.rejected }, { text: '', rejected: true }, `${colour} noise, seed ${seed}, ${hint ? JSON.stringify(hint) : 'open'}: ${r.path}`);
      }
    }
  }
});

t.test('an answer said over the same noise is heard', async (t) => {
  const parts: Int16Array[] = [];
  for await (const c of new OfflineTts().synthesize({ text: 'About eighty lakh rupees.', voice: 'kal16', language: 'en', sampleRateHz: 16000 })) parts.push(c);
  const words = mulawDecode(mulawEncode(resample(Int16Array.from(parts.flatMap((p) => [...p])), 16000, 8000)));
  let speech = 0;
  for (const v of words) speech += v * v;
  const bed = noise('pink', 4, words.length + 6400);
  // 25 dB under the words' power
  const k = Math.sqrt(speech / words.length / 10 ** 2.5) / 1500;
  const pcm = Int16Array.from(bed, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v * k + (i >= 2400 && i < 2400 + words.length ? words[i - 2400] : 0)))));
  const r = await recognise(pcm, 8000, { asking: 'budget', open: ['budget'] });
  t.equal(r.text, 'about eighty lakh rupees', r.path);
});

t.test('frame powers fed in pieces are the whole turn\'s', async (t) => {
  const pcm = noise('white', 5, 8123);
  const whole = new FramePowers();
  whole.push(pcm);
  const pieces = new FramePowers();
  for (let i = 0; i < pcm.length; i += 333) pieces.push(pcm.subarray(i, i + 333));
  t.equal(whole.powers.length, Math.floor(8123 / 80));
  t.same(pieces.powers, whole.powers);
});

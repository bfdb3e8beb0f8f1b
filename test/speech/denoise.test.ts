/**
 * Noise suppression before the recogniser (src/speech/ears/denoise.ts): streaming in pieces gives the same audio as
 * the whole turn; noise between words is brought down while the words keep their level; clean speech passes as it
 * came. RNNoise for noisy lines (src/speech/ears/rnnoise.ts) keeps the turn's length and timing and brings the noise
 * down to its limit; how noisy a line is (lineSnrDb) follows the SNR the noise was mixed at. Speech is a sentence in the offline voice through a phone line, noise the seeded pink noise of the benches.
 */
import t from 'tap';
import { concatPcm, mulawDecode, mulawEncode, resample } from '../../src/audio/index.js';
import { NoiseSuppressor, suppressNoise } from '../../src/speech/ears/denoise.js';
import { LineNoiseSuppressor, suppressLineNoise } from '../../src/speech/ears/rnnoise.js';
import { FramePowers, lineSnrDb } from '../../src/speech/ears/stand_out.js';
import { recognise } from '../../src/speech/ears/recogniser.js';
import { closeSpeechPool } from '../../src/speech/pool.js';
import { OfflineTts } from '../../src/speech/voice/tts.js';
import { colouredNoise } from '../../bench/audio_noise.js';
import { phoneWords } from './helpers/phone_line.js';

t.teardown(closeSpeechPool);

const parts: Int16Array[] = [];
for await (const c of new OfflineTts().synthesize({ text: 'My budget is about eighty lakh.', voice: 'kal16', language: 'en', sampleRateHz: 16000 })) parts.push(c);
const words = mulawDecode(mulawEncode(resample(Int16Array.from(parts.flatMap((p) => [...p])), 16000, 8000)));
// one second of quiet, the sentence, one second of quiet
const QUIET = 8000;
const clean = new Int16Array(QUIET + words.length + QUIET);
clean.set(words, QUIET);
const power = (a: ArrayLike<number>, from = 0, to = a.length) => { let e = 0; for (let i = from; i < to; i++) e += a[i] * a[i]; return e / (to - from); };
const dB = (x: number) => 10 * Math.log10(x);

/** The sentence with pink noise at `snr` dB below its power. */
function noisy(snr: number): { pcm: Int16Array; noise: Float64Array } {
  const noise = colouredNoise('pink', clean.length, 7, 8000);
  const gain = Math.sqrt(power(words) / 10 ** (snr / 10));
  return { pcm: Int16Array.from(clean, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + gain * noise[i])))), noise };
}

t.test('fed in pieces of any size, the output is the whole turn\'s, sample for sample', async (t) => {
  const { pcm } = noisy(15);
  const whole = suppressNoise(pcm);
  t.equal(whole.length, pcm.length);
  for (const piece of [1600, 333, 20000]) {
    const s = new NoiseSuppressor();
    const out: number[] = [];
    for (let i = 0; i < pcm.length; i += piece) out.push(...s.process(pcm.subarray(i, i + piece)));
    out.push(...s.flush());
    t.equal(out.length, pcm.length, `pieces of ${piece}`);
    t.same(Int16Array.from(out), whole, `pieces of ${piece}`);
  }
  t.same(new NoiseSuppressor().flush(), new Int16Array(0), 'nothing in, nothing out');
  t.equal(suppressNoise(new Int16Array(100)).length, 100, 'shorter than a frame');
});

t.test('noise between the words falls by 10 dB or more; the words lose under 3 dB', async (t) => {
  const { pcm } = noisy(10);
  const out = suppressNoise(pcm);
  // the second of quiet after the sentence: the tracker has seen the noise under the words by then
  const tail = [QUIET + words.length + 800, clean.length - 400] as const;
  const noiseDrop = dB(power(pcm, ...tail)) - dB(power(out, ...tail));
  t.ok(noiseDrop >= 10, `noise after the words: ${noiseDrop.toFixed(1)} dB down`);
  const speechDrop = dB(power(pcm, QUIET, QUIET + words.length)) - dB(power(out, QUIET, QUIET + words.length));
  t.ok(speechDrop < 3, `words: ${speechDrop.toFixed(1)} dB down`);
});

t.test('clean speech passes as it came', async (t) => {
  const out = suppressNoise(clean);
  const diff = Int16Array.from(clean, (v, i) => v - out[i]);
  const change = dB(power(clean)) - dB(power(diff));
  t.ok(change >= 15, `what the filter changed sits ${change.toFixed(1)} dB under the speech`);
});

t.test('RNNoise: same length and timing, noise between the words down by its limit (about 10 dB), the words under 3 dB', async (t) => {
  const { pcm } = noisy(10);
  const out = suppressLineNoise(pcm, 8000);
  t.equal(out.length, pcm.length);
  const tail = [QUIET + words.length + 800, clean.length - 400] as const;
  const noiseDrop = dB(power(pcm, ...tail)) - dB(power(out, ...tail));
  t.ok(noiseDrop >= 9 && noiseDrop <= 12, `noise after the words: ${noiseDrop.toFixed(1)} dB down`);
  const speechDrop = dB(power(pcm, QUIET, QUIET + words.length)) - dB(power(out, QUIET, QUIET + words.length));
  t.ok(speechDrop < 3, `words: ${speechDrop.toFixed(1)} dB down`);
  // its output lags its input by two frames, which it takes off: the clean sentence lines up with itself
  const y = suppressLineNoise(clean, 8000);
  const at = (lag: number) => { let s = 0; for (let i = QUIET; i < QUIET + words.length; i++) s += clean[i] * y[i + lag]; return s; };
  const lags = Array.from({ length: 161 }, (_, i) => i - 80);
  t.equal(lags.reduce((best, l) => (at(l) > at(best) ? l : best), 0), 0, 'no lag');
  t.same(suppressLineNoise(new Int16Array(0), 8000), new Int16Array(0), 'nothing in, nothing out');
});

t.test('RNNoise streams: fed in pieces of any size (a live turn\'s), the output is the whole turn\'s', async (t) => {
  const { pcm } = noisy(12);
  const whole = suppressLineNoise(pcm, 8000);
  for (const piece of [1600, 333, 7]) {
    const s = new LineNoiseSuppressor(8000);
    const out: Int16Array[] = [];
    for (let i = 0; i < pcm.length; i += piece) out.push(s.process(pcm.subarray(i, i + piece)));
    t.ok(out.reduce((a, o) => a + o.length, 0) > pcm.length - 400, `pieces of ${piece}: all but the last 50 ms out before the end`);
    out.push(s.flush());
    s.close();
    t.same(concatPcm(out), whole, `pieces of ${piece}: the same samples`);
  }
});

t.test('how far speech stands over the line follows the SNR of its noise', async (t) => {
  const snrOf = (pcm: Int16Array) => { const p = new FramePowers(); p.push(pcm.subarray(QUIET - 2400, QUIET + words.length + 4000)); return lineSnrDb(p.powers); };
  const clear = snrOf(clean), at20 = snrOf(noisy(20).pcm), at10 = snrOf(noisy(10).pcm);
  t.ok(clear > 50, `clean: ${clear.toFixed(1)} dB`);
  t.ok(at20 > 15 && at20 < 30, `pink noise at 20 dB: ${at20.toFixed(1)} dB`);
  t.ok(at10 > 5 && at10 < at20, `pink noise at 10 dB: ${at10.toFixed(1)} dB`);
  t.equal(lineSnrDb([]), Infinity, 'no audio');
});

t.test("a turn of continuous speech: its line's floor is the quiet before it, not the dips between its words", async (t) => {
  const said = await phoneWords('My name is Arjun and my budget is one crore.', 'slt');
  const loud = (v: number) => Math.abs(v) > 300;
  const turn = said.subarray(Math.max(0, said.findIndex(loud) - 800), said.length - said.slice().reverse().findIndex(loud));
  const powersOf = (pcm: Int16Array) => { const p = new FramePowers(); p.push(pcm); return p.powers; };
  const alone = lineSnrDb(powersOf(turn)), withQuiet = lineSnrDb(powersOf(turn), powersOf(new Int16Array(8000)));
  t.ok(alone < 30, `the turn alone looks noisy: ${alone.toFixed(1)} dB`);
  t.ok(withQuiet > 50, `with the clean line's second before it: ${withQuiet.toFixed(1)} dB`);
  const line = new Int16Array(8000 + turn.length);
  line.set(turn, 8000);
  const noise = colouredNoise('pink', line.length, 9, 8000);
  const power = turn.reduce((a, v) => a + v * v, 0) / turn.length;
  const onNoise = Int16Array.from(line, (v, i) => Math.round(v + Math.sqrt(power / 100) * noise[i])); // 20 dB under the speech
  const noisy = lineSnrDb(powersOf(onNoise.subarray(8000)), powersOf(onNoise.subarray(0, 8000)));
  t.ok(noisy < 30, `the same over pink noise at 20 dB, quiet before and all: ${noisy.toFixed(1)} dB`);
});

t.test('a budget said over pink noise at 8 dB SNR is heard right (RNNoise before the recogniser)', async (t) => {
  const { pcm } = noisy(8);
  const turn = pcm.subarray(QUIET - 2400, QUIET + words.length + 4000);
  const heard = await recognise(turn, 8000, { asking: 'budget', open: ['budget'] });
  t.equal(heard.text, 'my budget is about eighty lakh');
});

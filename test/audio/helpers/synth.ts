/**
 * Speech-like test signals in coloured stationary noise, deterministic (seeded), at 16 kHz.
 * "Speech" is voiced syllables (harmonics of a wandering pitch, shaped by two formant-like peaks) with a
 * syllabic envelope, short dips between syllables, and some syllables much weaker than others, which is what a
 * level detector loses first under heavy noise. SNR follows the corpus: active speech power over noise power.
 */
import { colouredNoise, rng, type NoiseColour } from '../../../bench/audio_noise.js';

export type { NoiseColour };

/** One utterance of `syllables` voiced syllables; every third is 12 dB weaker. Unscaled float samples at 16 kHz. */
export function utterance(syllables: number, seed: number): Float64Array {
  const r = rng(seed);
  const parts: Float64Array[] = [];
  for (let k = 0; k < syllables; k++) {
    const len = Math.round(16 * (140 + 120 * r())); // 140-260 ms
    const gain = k % 3 === 2 ? 0.25 : 1;
    const f0 = 100 + 60 * r();
    const f1 = 400 + 400 * r(), f2 = 1100 + 900 * r();
    const s = new Float64Array(len);
    let phase = 0;
    for (let i = 0; i < len; i++) {
      const f = f0 * (1 + 0.05 * Math.sin((2 * Math.PI * i) / len));
      phase += (2 * Math.PI * f) / 16000;
      let v = 0;
      for (let h = 1; h * f0 < 3400; h++) {
        const hz = h * f0;
        const w = 1 / (1 + ((hz - f1) / 150) ** 2) + 0.5 / (1 + ((hz - f2) / 250) ** 2);
        v += w * Math.sin(h * phase);
      }
      s[i] = gain * v * Math.sin((Math.PI * i) / len) ** 0.5; // syllabic envelope
    }
    parts.push(s, new Float64Array(Math.round(16 * (30 + 50 * r())))); // 30-80 ms dip between syllables
  }
  return concat(parts.slice(0, -1));
}

export function concat(parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/**
 * Places utterances (arrays) and background (numbers: ms) in order, scales the speech to `peakDbfs`, adds `colour` noise at `snrDb` (active
 * speech power over noise power) and returns 16 kHz PCM16 with the speech intervals in ms.
 */
export function noisyCall(parts: (number | Float64Array)[], colour: NoiseColour, snrDb: number, seed: number, peakDbfs = -9) {
  const pieces = parts.map((p) => (typeof p === 'number' ? new Float64Array(16 * p) : p));
  const speech = concat(pieces);
  const segments: { startMs: number; endMs: number }[] = [];
  for (let k = 0, o = 0; k < pieces.length; o += pieces[k].length, k++) {
    if (typeof parts[k] !== 'number') segments.push({ startMs: o / 16, endMs: (o + pieces[k].length) / 16 });
  }
  let peak = 0;
  for (const v of speech) peak = Math.max(peak, Math.abs(v));
  const g = (10 ** (peakDbfs / 20)) / peak;
  let ps = 0, n = 0;
  for (const s of segments) for (let i = s.startMs * 16; i < s.endMs * 16; i++) { ps += (speech[i] * g) ** 2; n++; }
  const noise = colouredNoise(colour, speech.length, seed);
  const ng = Math.sqrt(ps / n / 10 ** (snrDb / 10));
  const pcm = new Int16Array(speech.length);
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(32768 * (speech[i] * g + noise[i] * ng))));
  return { pcm, segments };
}

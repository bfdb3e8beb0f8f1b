/**
 * Seeded stationary noise of three colours at unit power, for held-out noise checks (bench/audio_noise_mix.bench.ts)
 * and synthetic test calls (test/audio/helpers/synth.ts). Same recipes as the corpus generator describes:
 * white Gaussian, pink by Paul Kellet's refined filter (-3 dB/octave), brown by a leaky integrator with pole 0.995.
 */
export type NoiseColour = 'white' | 'pink' | 'brown';

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 32; };
}

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

/** n samples of unit-power, zero-mean noise (the first second of filter output is discarded). */
export function colouredNoise(colour: NoiseColour, n: number, seed: number, sampleRateHz = 16000): Float64Array {
  const r = rng(seed);
  const x = new Float64Array(n + sampleRateHz);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, br = 0;
  for (let i = 0; i < x.length; i++) {
    const w = gaussian(r);
    if (colour === 'white') x[i] = w;
    else if (colour === 'pink') {
      b0 = 0.99886 * b0 + w * 0.0555179; b1 = 0.99332 * b1 + w * 0.0750759; b2 = 0.969 * b2 + w * 0.153852;
      b3 = 0.8665 * b3 + w * 0.3104856; b4 = 0.55 * b4 + w * 0.5329522; b5 = -0.7616 * b5 - w * 0.016898;
      x[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362; b6 = w * 0.115926;
    } else { br = 0.995 * br + w; x[i] = br; }
  }
  const y = x.subarray(sampleRateHz);
  let mean = 0;
  for (const v of y) mean += v;
  mean /= n;
  let p = 0;
  for (let i = 0; i < n; i++) { y[i] -= mean; p += y[i] * y[i]; }
  const k = 1 / Math.sqrt(p / n);
  return Float64Array.from(y, (v) => v * k);
}

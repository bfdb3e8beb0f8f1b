/**
 * Noise suppression before the grammar recogniser: a Wiener filter per frequency bin with a decision-directed a
 * priori SNR (Ephraim and Malah) and a noise spectrum tracked as the minimum of the smoothed power over the last two
 * seconds (minimum statistics, Martin), so it streams (a live turn's pieces) and needs no quiet before the
 * speech: a bin is rarely loud with speech that long. The recogniser's acoustic model was
 * trained on clean telephone speech: pink noise at 20 dB SNR halved what it heard right (bench/README.md).
 * Frames of 32 ms at 8 kHz, half overlapped, square-root Hann windows (they add up to one).
 */
import FFT from 'fft.js';

const N = 256;
const HOP = N / 2;
const BINS = N / 2 + 1;
const WINDOW = Float64Array.from({ length: N }, (_, i) => Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N)));
/** lowest gain: deeper suppression leaves "musical" residue the model hears as phones */
const GAIN_FLOOR = 0.1;
/** decision-directed smoothing of the a priori SNR */
const ALPHA = 0.98;
/** smoothing of the power whose minimum is the noise */
const POWER_SMOOTHING = 0.8;
/** the minimum is over SUBWINDOWS windows of SUBWINDOW_FRAMES frames (8 x 16 frames of 16 ms: about two seconds) */
const SUBWINDOWS = 8;
const SUBWINDOW_FRAMES = 16;
/** the minimum of a smoothed noise power sits under its mean */
const NOISE_BIAS = 2;

export class NoiseSuppressor {
  private readonly fft = new FFT(N);
  private readonly input = new Float64Array(N);
  private readonly spectrum = this.fft.createComplexArray() as number[];
  private readonly back = this.fft.createComplexArray() as number[];
  private readonly smoothed = new Float64Array(BINS);
  private readonly noise = new Float64Array(BINS);
  /** per bin: the minimum of each finished subwindow (oldest first) and of the current one */
  private readonly windowMins: Float64Array[] = Array.from({ length: SUBWINDOWS }, () => new Float64Array(BINS).fill(Infinity));
  private readonly currentMin = new Float64Array(BINS).fill(Infinity);
  private readonly lastClean = new Float64Array(BINS);
  private readonly overlap = new Float64Array(HOP);
  private pending = new Int16Array(0);
  private frames = 0;

  /** Cleans more audio (8 kHz); returns the samples that are complete, HOP samples behind the input. */
  process(pcm: Int16Array): Int16Array {
    const all = new Int16Array(this.pending.length + pcm.length);
    all.set(this.pending);
    all.set(pcm, this.pending.length);
    const count = all.length >= N ? Math.floor((all.length - N) / HOP) + 1 : 0;
    const out = new Int16Array(count * HOP);
    for (let f = 0; f < count; f++) this.frame(all.subarray(f * HOP, f * HOP + N), out.subarray(f * HOP, (f + 1) * HOP));
    this.pending = all.slice(count * HOP);
    return out;
  }

  /** The rest of the audio, padded with quiet to a whole frame. */
  flush(): Int16Array {
    const tail = this.pending.length;
    if (tail === 0) return new Int16Array(0);
    return this.process(new Int16Array(N)).subarray(0, tail);
  }

  private frame(samples: Int16Array, out: Int16Array): void {
    for (let i = 0; i < N; i++) this.input[i] = samples[i] * WINDOW[i];
    const X = this.spectrum;
    this.fft.realTransform(X, this.input);
    this.fft.completeSpectrum(X);
    const first = this.frames === 0;
    for (let k = 0; k < BINS; k++) {
      const power = X[2 * k] ** 2 + X[2 * k + 1] ** 2;
      this.trackNoise(k, power, first);
      const noise = this.noise[k] * NOISE_BIAS + 1e-9;
      const posteriori = power / noise;
      const priori = ALPHA * (this.lastClean[k] / noise) + (1 - ALPHA) * Math.max(posteriori - 1, 0);
      const gain = Math.max(GAIN_FLOOR, priori / (1 + priori));
      this.lastClean[k] = gain * gain * power;
      X[2 * k] *= gain; X[2 * k + 1] *= gain;
      if (k > 0 && k < N / 2) { X[2 * (N - k)] *= gain; X[2 * (N - k) + 1] *= gain; }
    }
    if (++this.frames % SUBWINDOW_FRAMES === 0) {
      const done = this.windowMins.shift()!;
      done.set(this.currentMin);
      this.windowMins.push(done);
      this.currentMin.fill(Infinity);
    }
    this.fft.inverseTransform(this.back, X);
    for (let i = 0; i < HOP; i++) {
      const v = this.overlap[i] + this.back[2 * i] * WINDOW[i];
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v);
      this.overlap[i] = this.back[2 * (i + HOP)] * WINDOW[i + HOP];
    }
  }

  /** The noise in bin k: the minimum smoothed power of the last two seconds. */
  private trackNoise(k: number, power: number, first: boolean): void {
    const p = first ? power : POWER_SMOOTHING * this.smoothed[k] + (1 - POWER_SMOOTHING) * power;
    this.smoothed[k] = p;
    if (p < this.currentMin[k]) this.currentMin[k] = p;
    let min = this.currentMin[k];
    for (const w of this.windowMins) if (w[k] < min) min = w[k];
    this.noise[k] = min;
  }

}

/** A whole turn through a fresh suppressor, the same length as it came. */
export function suppressNoise(pcm: Int16Array): Int16Array {
  const s = new NoiseSuppressor();
  const head = s.process(pcm);
  const out = new Int16Array(pcm.length);
  out.set(head);
  out.set(s.flush().subarray(0, pcm.length - head.length), head.length);
  return out;
}

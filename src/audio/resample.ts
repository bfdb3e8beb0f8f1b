/**
 * Band-limited rational resampling between 8, 16, 24 and 48 kHz (any integer rates work).
 *
 * Output sample n sits at input time t = n * from / to. Between input samples t takes only L = to / gcd
 * distinct fractional positions, so we precompute one Kaiser-windowed sinc kernel per position (polyphase).
 * The low-pass cut-off is 0.45 x the lower of the two rates (0.9 of its Nyquist), which keeps telephone
 * speech (<= 3.4 kHz at 8 kHz) untouched and puts images/aliases at least ~70 dB down (Kaiser beta 8).
 */

/** Zero-crossings of the sinc on each side, counted at the lower rate: longer = sharper = costlier. */
const HALF_ZEROS = 16;
const KAISER_BETA = 8;
const CUTOFF_OF_NYQUIST = 0.9;

interface Kernel { L: number; M: number; half: number; taps: Float64Array[] }
const kernels = new Map<string, Kernel>();

function gcd(a: number, b: number): number { return b === 0 ? a : gcd(b, a % b); }

function besselI0(x: number): number {
  let sum = 1, term = 1;
  for (let k = 1; k < 50; k++) { term *= (x / (2 * k)) ** 2; sum += term; if (term < 1e-12 * sum) break; }
  return sum;
}

function kernelFor(fromHz: number, toHz: number): Kernel {
  const key = `${fromHz}:${toHz}`;
  const hit = kernels.get(key);
  if (hit) return hit;
  const g = gcd(fromHz, toHz);
  const L = toHz / g, M = fromHz / g;
  const ratio = Math.min(1, toHz / fromHz);      // < 1 when decimating
  const fc = 0.5 * ratio * CUTOFF_OF_NYQUIST;    // cycles per input sample
  const half = Math.ceil(HALF_ZEROS / ratio);    // kernel half-width in input samples
  const i0b = besselI0(KAISER_BETA);
  const taps: Float64Array[] = [];
  for (let p = 0; p < L; p++) {
    const frac = p / L;
    const k = new Float64Array(2 * half);
    let sum = 0;
    for (let j = 0; j < 2 * half; j++) {
      const tau = frac - (j - half + 1);         // distance from output time to input sample base-half+1+j
      const x = 2 * fc * tau;
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const w = Math.abs(tau) >= half ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - (tau / half) ** 2)) / i0b;
      k[j] = sinc * w;
      sum += k[j];
    }
    for (let j = 0; j < k.length; j++) k[j] /= sum; // unity gain at DC for every phase
    taps.push(k);
  }
  const kernel = { L, M, half, taps };
  kernels.set(key, kernel);
  return kernel;
}

/** Resample PCM16 mono. Edges are treated as zero-padded; output length = floor(len * to / from). */
export function resample(pcm: Int16Array, fromHz: number, toHz: number): Int16Array {
  checkRates(fromHz, toHz);
  if (fromHz === toHz) return pcm.slice();
  const kernel = kernelFor(fromHz, toHz);
  const out = new Int16Array(Math.floor((pcm.length * kernel.L) / kernel.M));
  convolve(pcm, 0, kernel, out, 0);
  return out;
}

function checkRates(fromHz: number, toHz: number): void {
  if (!(fromHz > 0 && toHz > 0 && Number.isInteger(fromHz) && Number.isInteger(toHz))) {
    throw new RangeError(`resample: rates must be positive integers (got ${fromHz} -> ${toHz})`);
  }
}

/**
 * Output samples first .. first + out.length - 1 from input `pcm` holding stream samples from `offset` on; input
 * outside it counts as zero.
 */
function convolve(pcm: Int16Array, offset: number, { L, M, half, taps }: Kernel, out: Int16Array, first: number): void {
  const n = pcm.length;
  for (let o = 0; o < out.length; o++) {
    const pos = (first + o) * M;
    const base = Math.floor(pos / L);
    const k = taps[pos - base * L];
    const start = base - half + 1 - offset;
    let acc = 0;
    if (start >= 0 && start + 2 * half <= n) {
      for (let j = 0; j < k.length; j++) acc += pcm[start + j] * k[j];
    } else {
      for (let j = 0; j < k.length; j++) {
        const i = start + j;
        if (i >= 0 && i < n) acc += pcm[i] * k[j];
      }
    }
    const r = Math.round(acc);
    out[o] = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
  }
}

/**
 * `resample` for a stream that arrives in pieces of any size: each piece's output is what one resample of the whole
 * stream gives there (resampling each piece alone would treat its edges as silence: a click at every boundary). An
 * output sample is given once the input its kernel reaches has come (a look-ahead of 2 ms at 8 kHz); `flush` ends
 * the stream as `resample` ends a recording.
 */
export class StreamingResampler {
  readonly #kernel: Kernel;
  /** input the next outputs reach: stream samples from #start on */
  #held = new Int16Array(0);
  #start = 0;
  /** the next output sample, in stream coordinates */
  #next = 0;

  constructor(fromHz: number, toHz: number) {
    checkRates(fromHz, toHz);
    this.#kernel = kernelFor(fromHz, toHz);
  }

  /** Feeds input; returns the output samples that are now final (possibly none). */
  push(pcm: Int16Array): Int16Array {
    const all = new Int16Array(this.#held.length + pcm.length);
    all.set(this.#held);
    all.set(pcm, this.#held.length);
    this.#held = all;
    const { L, M, half } = this.#kernel;
    // output o reaches input up to floor(o * M / L) + half
    const received = this.#start + all.length;
    return this.#emit(Math.max(this.#next, Math.floor(((received - half) * L - 1) / M) + 1));
  }

  /** The rest of the output, the input after the stream's end counting as zero. */
  flush(): Int16Array {
    return this.#emit(Math.floor(((this.#start + this.#held.length) * this.#kernel.L) / this.#kernel.M));
  }

  /** Outputs #next .. end - 1; lets go of input no later output reaches. */
  #emit(end: number): Int16Array {
    const out = new Int16Array(Math.max(0, end - this.#next));
    convolve(this.#held, this.#start, this.#kernel, out, this.#next);
    this.#next += out.length;
    const { L, M, half } = this.#kernel;
    const keepFrom = Math.max(this.#start, Math.floor((this.#next * M) / L) - half + 1);
    this.#held = this.#held.subarray(keepFrom - this.#start);
    this.#start = keepFrom;
    return out;
  }
}

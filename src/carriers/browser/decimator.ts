/**
 * 16 kHz -> 8 kHz for a stream that arrives in pieces of any size: src/audio/resample.ts is band-limited but
 * treats each call's edges as silence, which at every 20 ms frame boundary would be a click the speech detector
 * hears. This keeps the kernel's reach of input around each output, so the stream's output is exactly what one
 * resample of the whole recording gives (delayed by the kernel's look-ahead, 2 ms).
 */
import { resample } from '../../audio/index.js';

/** input samples the 16 -> 8 kHz kernel reaches on each side of an output sample (resample.ts: 16 zeros / 0.5) */
const REACH = 32;

export class StreamingDecimator {
  /** input not yet fully used: starts at stream sample #start (always even) */
  #held = new Int16Array(0);
  #start = 0;
  /** the next output sample to emit, in stream coordinates */
  #next = 0;

  /** Feeds 16 kHz samples; returns the 8 kHz samples that are now final (possibly none). */
  push(pcm: Int16Array): Int16Array {
    const all = new Int16Array(this.#held.length + pcm.length);
    all.set(this.#held);
    all.set(pcm, this.#held.length);
    // output o (input position 2o) is final once input up to 2o + REACH is here
    const end = this.#start + all.length;
    const last = Math.floor((end - 1 - REACH) / 2);
    if (last < this.#next) { this.#held = all; return new Int16Array(0); }
    const out = resample(all, 16_000, 8000).slice(this.#next - this.#start / 2, last - this.#start / 2 + 1);
    this.#next = last + 1;
    // keep what the next outputs reach back to, from an even stream position
    const keepFrom = Math.max(this.#start, (this.#next * 2 - REACH) & ~1);
    this.#held = all.slice(keepFrom - this.#start);
    this.#start = keepFrom;
    return out;
  }
}

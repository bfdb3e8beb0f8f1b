/**
 * Incremental splitter into fixed-duration frames (20 ms by default): 160 samples at 8 kHz, 320 at 16 kHz.
 * Carriers deliver audio in arbitrary chunk sizes; the detectors count time in whole frames.
 * Every frame is a fresh array with its own exact-size ArrayBuffer, so it can be transferred to a worker.
 */

export const FRAME_MS = 20;
/** one 20 ms frame of telephone audio (8 kHz): samples, and bytes in G.711 */
export const PHONE_FRAME_SAMPLES = 160;

export function samplesPerFrame(sampleRateHz: number, frameMs = FRAME_MS): number {
  const n = (sampleRateHz * frameMs) / 1000;
  if (!Number.isInteger(n) || n <= 0) throw new RangeError(`${frameMs} ms at ${sampleRateHz} Hz is not a whole sample count`);
  return n;
}

type Samples = Int16Array | Uint8Array;

class Splitter<T extends Samples> {
  readonly frameSamples: number;
  #pending: T;
  #fill = 0;
  constructor(frameSamples: number, private readonly make: (n: number) => T) {
    this.frameSamples = frameSamples;
    this.#pending = make(frameSamples);
  }

  /** Appends a chunk; returns every frame it completed (possibly none). */
  write(chunk: T): T[] {
    const frames: T[] = [];
    let i = 0;
    while (i < chunk.length) {
      const take = Math.min(this.frameSamples - this.#fill, chunk.length - i);
      this.#pending.set(chunk.subarray(i, i + take) as never, this.#fill);
      this.#fill += take;
      i += take;
      if (this.#fill === this.frameSamples) {
        frames.push(this.#pending);
        this.#pending = this.make(this.frameSamples);
        this.#fill = 0;
      }
    }
    return frames;
  }

  /** Samples waiting for the next frame. */
  get buffered(): number { return this.#fill; }

  /** Emits the partial frame zero-padded (silence for PCM; use `padValue` 0xff for mu-law silence). */
  flush(padValue = 0): T[] {
    if (this.#fill === 0) return [];
    this.#pending.fill(padValue, this.#fill);
    const last = this.#pending;
    this.#pending = this.make(this.frameSamples);
    this.#fill = 0;
    return [last];
  }
}

/** PCM16 frames. */
export class FrameSplitter extends Splitter<Int16Array> {
  constructor(opts: { sampleRateHz: number; frameMs?: number }) {
    super(samplesPerFrame(opts.sampleRateHz, opts.frameMs), (n) => new Int16Array(n));
  }
}

/** G.711 byte frames (one byte per sample). */
export class ByteFrameSplitter extends Splitter<Uint8Array> {
  constructor(opts: { sampleRateHz: number; frameMs?: number }) {
    super(samplesPerFrame(opts.sampleRateHz, opts.frameMs), (n) => new Uint8Array(n));
  }
}

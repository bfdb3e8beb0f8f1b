/**
 * Noise suppression for noisy lines: RNNoise (a recurrent network trained on speech in many noises), compiled to
 * WebAssembly by Jitsi. It runs at 48 kHz in 10 ms frames, so a turn is taken up from 8 kHz and back. In noise it
 * hears far more right than the Wiener filter (`denoise.ts`), but not on clean lines and at much more CPU, so the
 * recogniser uses it only where the line is noisy (figures: bench/README.md).
 */
// the package's index is not loadable by Node (extensionless imports); its Node build is this file
// @ts-expect-error no type declarations ship with the package
import createRnnoiseModule from '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js';
import { concatPcm, StreamingResampler } from '../../audio/index.js';

const RATE_HZ = 48_000;
const FRAME = 480;
/**
 * The share of the turn as it came mixed back into RNNoise's output: suppression held to about 10 dB, because its
 * deep cuts took the quiet ends of words too (a teen heard as its ten) and so stored wrong budgets.
 */
const KEEP_OF_INPUT = 0.3;
/** output lags input by this many samples at 48 kHz (two frames; test/speech/denoise.test.ts checks the alignment) */
const LAG = 2 * FRAME;

interface RnnoiseModule {
  HEAPF32: Float32Array;
  _malloc(bytes: number): number;
  _rnnoise_create(model: number): number;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
  _rnnoise_destroy(state: number): void;
}

let module: RnnoiseModule | undefined;
/** frame buffers in the module's memory, shared by the thread's suppressors (each frame is processed at once) */
let input = 0, output = 0;

/**
 * RNNoise over a stream of 8 kHz audio fed in pieces of any size (a live turn's pieces, or a whole turn):
 * taken up to 48 kHz, suppressed frame by frame, taken down again, each step streaming, so the output is the same
 * however the input is cut. Output lags input (RNNoise's two frames and the resamplers' look-ahead, about 25 ms);
 * `flush` gives the rest, the output as long as the input. Each suppressor holds its network's state until `close`.
 */
export class LineNoiseSuppressor {
  readonly #up: StreamingResampler;
  readonly #down: StreamingResampler;
  #state: number;
  /** 48 kHz input short of a frame */
  #pending = new Float32Array(FRAME);
  #pendingLength = 0;
  /** the network's output samples still to drop (its lag) */
  #lagLeft = LAG;
  /** the input not yet mixed back into the output */
  #input: Int16Array[] = [];
  #inputOffset = 0;
  #inLength = 0;
  #outLength = 0;

  /** `rateHz`: the stream's rate (the recogniser's 8 kHz) */
  constructor(rateHz: number) {
    this.#up = new StreamingResampler(rateHz, RATE_HZ);
    this.#down = new StreamingResampler(RATE_HZ, rateHz);
    if (!module) {
      module = createRnnoiseModule() as RnnoiseModule;
      input = module._malloc(FRAME * 4);
      output = module._malloc(FRAME * 4);
    }
    this.#state = module._rnnoise_create(0);
  }

  /** Suppresses more of the stream; returns the samples that are complete. */
  process(pcm: Int16Array): Int16Array {
    this.#input.push(pcm.slice());
    this.#inLength += pcm.length;
    return this.#mix(this.#down.push(this.#suppress(this.#up.push(pcm))));
  }

  /** The rest of the stream: the output is then as long as the input. */
  flush(): Int16Array {
    // quiet after the stream brings the network's lag out
    const up = concatPcm([this.#up.flush(), new Int16Array(LAG + FRAME)]);
    return this.#mix(concatPcm([this.#down.push(this.#suppress(up)), this.#down.flush()]));
  }

  /** Lets go of the network's state (the suppressor cannot be used after). */
  close(): void {
    if (this.#state && module) module._rnnoise_destroy(this.#state);
    this.#state = 0;
  }

  /** 48 kHz audio through the network, whole frames only; its lag taken off the front. */
  #suppress(up: Int16Array): Int16Array {
    const m = module!;
    const frames = Math.floor((this.#pendingLength + up.length) / FRAME);
    const skipped = Math.min(this.#lagLeft, frames * FRAME);
    const out = new Int16Array(frames * FRAME - skipped);
    let at = -this.#lagLeft;
    this.#lagLeft -= skipped;
    for (const v of up) {
      this.#pending[this.#pendingLength++] = v;
      if (this.#pendingLength < FRAME) continue;
      this.#pendingLength = 0;
      m.HEAPF32.set(this.#pending, input >> 2);
      m._rnnoise_process_frame(this.#state, output, input);
      const frame = m.HEAPF32.subarray(output >> 2, (output >> 2) + FRAME);
      for (let j = 0; j < FRAME; j++, at++) {
        if (at >= 0) out[at] = Math.max(-32768, Math.min(32767, Math.round(frame[j])));
      }
    }
    return out;
  }

  /** The suppressed 8 kHz samples with KEEP_OF_INPUT of the input at the same times mixed back; never past the input. */
  #mix(clean: Int16Array): Int16Array {
    const n = Math.min(clean.length, this.#inLength - this.#outLength);
    const out = new Int16Array(n);
    for (let i = 0; i < n; i++) {
      while (this.#inputOffset >= this.#input[0].length) { this.#input.shift(); this.#inputOffset = 0; }
      const v = Math.round(clean[i] + KEEP_OF_INPUT * this.#input[0][this.#inputOffset++]);
      out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    this.#outLength += n;
    return out;
  }
}

/** A whole turn with its noise suppressed: the network starts afresh, as the turn's noise is judged on its own. */
export function suppressLineNoise(pcm: Int16Array, rateHz: number): Int16Array {
  const s = new LineNoiseSuppressor(rateHz);
  try {
    return concatPcm([s.process(pcm), s.flush()]);
  } finally {
    s.close();
  }
}

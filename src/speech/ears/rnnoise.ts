/**
 * Noise suppression for noisy lines: RNNoise (a recurrent network trained on speech in many noises), compiled to
 * WebAssembly by Jitsi. It runs at 48 kHz in 10 ms frames, so a turn is taken up from 8 kHz and back. In noise it
 * hears far more right than the Wiener filter (`denoise.ts`), but not on clean lines and at much more CPU, so the
 * recogniser uses it only where the line is noisy (figures: bench/README.md).
 */
// the package's index is not loadable by Node (extensionless imports); its Node build is this file
// @ts-expect-error no type declarations ship with the package
import createRnnoiseModule from '@jitsi/rnnoise-wasm/dist/rnnoise-sync.js';
import { resample } from '../../audio/resample.js';

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
let state = 0, input = 0, output = 0;

/**
 * A whole turn (8 kHz) with its noise suppressed. The network keeps no state between turns: each starts afresh, as
 * the turn's noise is judged on its own audio. Output frames lag the input by two frames, taken off here.
 */
export function suppressLineNoise(pcm8k: Int16Array, rateHz: number): Int16Array {
  if (!module) {
    module = createRnnoiseModule() as RnnoiseModule;
    input = module._malloc(FRAME * 4);
    output = module._malloc(FRAME * 4);
  }
  if (state) module._rnnoise_destroy(state);
  state = module._rnnoise_create(0);
  const up = resample(pcm8k, rateHz, RATE_HZ);
  const out = new Int16Array(up.length);
  const inAt = input >> 2, outAt = output >> 2;
  // quiet after the turn flushes the lag
  for (let i = 0; i < up.length + LAG; i += FRAME) {
    const heap = module.HEAPF32;
    for (let j = 0; j < FRAME; j++) heap[inAt + j] = i + j < up.length ? up[i + j] : 0;
    module._rnnoise_process_frame(state, output, input);
    const at = i - LAG;
    for (let j = 0; j < FRAME; j++) {
      const k = at + j;
      if (k >= 0 && k < out.length) out[k] = Math.max(-32768, Math.min(32767, Math.round(module.HEAPF32[outAt + j])));
    }
  }
  const back = resample(out, RATE_HZ, rateHz);
  return Int16Array.from(back, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + KEEP_OF_INPUT * pcm8k[i]))));
}

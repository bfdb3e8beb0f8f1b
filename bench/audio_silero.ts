/**
 * Silero VAD v4 (h/c-state I/O; the `silero_vad_legacy.onnx` file shipped in the @ricky0123/vad-web
 * devDependency) on onnxruntime-web's WebAssembly backend in Node, one thread, as the outside detector for the
 * corpus benches. Not used at run time. WebAssembly because it has no install step: nothing is fetched from
 * outside the npm registry (onnxruntime-node's postinstall downloads CUDA libraries).
 * Windows: 512 samples at 16 kHz / 256 at 8 kHz (32 ms). A 20 ms frame takes the probability of the latest
 * window that ended by the frame's end (causal), with LiveKit's default thresholds (on > 0.5, off < 0.35).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

type Ort = typeof import('onnxruntime-web');
export interface Silero { probs(pcm: Int16Array, rate: 8000 | 16000): Promise<Float32Array>; modelPath: string; runtime: string }

/** The detector, or a sentence saying why it is not available (the benches print it and go on without it). */
export async function loadSilero(): Promise<Silero | string> {
  let ort: Ort;
  let modelPath: string;
  try {
    ort = await import('onnxruntime-web');
    const require = createRequire(import.meta.url);
    modelPath = path.join(path.dirname(require.resolve('@ricky0123/vad-web')), 'silero_vad_legacy.onnx');
  } catch (err) {
    return 'Silero VAD is not installed (devDependencies onnxruntime-web and @ricky0123/vad-web; `npm install` '
      + `without --omit=dev installs them): outside-detector rows skipped. ${(err as Error).message.split('\n')[0]}`;
  }
  ort.env.wasm.numThreads = 1;
  const session = await ort.InferenceSession.create(readFileSync(modelPath), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const runWindows = async (pcm: Int16Array, rate: 8000 | 16000): Promise<Float32Array> => {
    const win = rate === 16000 ? 512 : 256;
    const n = Math.floor(pcm.length / win);
    const out = new Float32Array(n);
    let h = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
    let c = new ort.Tensor('float32', new Float32Array(128), [2, 1, 64]);
    const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(rate)]), []);
    for (let w = 0; w < n; w++) {
      const x = new Float32Array(win);
      for (let i = 0; i < win; i++) x[i] = pcm[w * win + i] / 32768;
      const r = await session.run({ input: new ort.Tensor('float32', x, [1, win]), sr, h, c });
      out[w] = (r.output.data as Float32Array)[0];
      h = r.hn as typeof h;
      c = r.cn as typeof c;
    }
    return out;
  };
  // WebAssembly tiers up over the first few thousand windows; warm it before anyone times it.
  const warm = new Int16Array(16000 * 20);
  for (let i = 0; i < warm.length; i++) warm[i] = Math.round(3000 * Math.sin(i * 0.07) * Math.sin(i * 0.0004));
  await runWindows(warm, 16000);
  await runWindows(warm.subarray(0, 8000 * 20), 8000);
  return { modelPath, runtime: `onnxruntime-web ${ort.env.versions.web ?? ''} (WebAssembly, 1 thread)`.replace('  ', ' '), probs: runWindows };
}

/** Window probabilities -> per-20 ms-frame speech flags (causal, hysteresis 0.5 / 0.35). */
export function sileroFrameFlags(probs: Float32Array, rate: 8000 | 16000, frames: number): boolean[] {
  const winMs = 32; // 512 samples at 16 kHz, 256 at 8 kHz
  const flags: boolean[] = [];
  let on = false;
  for (let f = 0; f < frames; f++) {
    const w = Math.floor(((f + 1) * 20) / winMs) - 1; // latest window ended by the frame's end
    const p = w >= 0 && w < probs.length ? probs[w] : 0;
    on = on ? p >= 0.35 : p > 0.5;
    flags.push(on);
  }
  return flags;
}

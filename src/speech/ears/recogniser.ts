/**
 * The grammar recogniser (soundswallower: PocketSphinx in WebAssembly, with its 8 kHz telephone acoustic model and
 * English dictionary), run in the thread that imports this (a speech worker). Two decoders per thread, loaded on
 * first use: one for focused grammars (one field asked: cheap to switch, 40-110 ms), one that keeps the last open
 * grammar (every field, mixed initiative: 1.8 s to compile on this machine class, so never recompiled for a switch
 * between turns of calls at different stages). A grammar is rebuilt only when the turn's hint changes it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import createModule, { type Decoder } from 'soundswallower';
import type { ListenHint } from '../../adapters/types.js';
import { resample } from '../../audio/index.js';
import { buildGrammar, garbageWords, isFocused } from './grammar.js';
import { readPath } from './reading.js';
import { EXTRA_PRONUNCIATIONS } from './vocabulary.js';

/** the acoustic model's rate: wideband audio is brought down to it */
export const EARS_RATE_HZ = 8000;
/** longest turn recognised (the detector's own cap is 30 s); the rest is not decoded */
export const MAX_TURN_SECONDS = 30;

const decoders: Record<'focused' | 'open', { decoder?: Promise<Decoder>; key?: string }> = { focused: {}, open: {} };

async function load(): Promise<Decoder> {
  const ss = await createModule();
  const model = join(dirname(createRequire(import.meta.url).resolve('soundswallower')), 'model', 'en-us');
  const d = new ss.Decoder({ hmm: model, dict: join(model, 'dict.txt'), samprate: EARS_RATE_HZ, nfft: 256, loglevel: 'FATAL' });
  await d.initialize();
  d.add_words(...EXTRA_PRONUNCIATIONS.map(([w, p]) => [w, p] as [string, string]), ...garbageWords());
  return d;
}

export async function recognise(pcm: Int16Array, sampleRateHz: number, hint?: ListenHint): Promise<{ text: string; path: string; rejected: boolean }> {
  const at8k = sampleRateHz === EARS_RATE_HZ ? pcm : resample(pcm, sampleRateHz, EARS_RATE_HZ);
  const n = Math.min(at8k.length, MAX_TURN_SECONDS * EARS_RATE_HZ);
  const d = await decoderFor(hint);
  // under 100 ms: nothing to recognise (an empty task is a warm-up: the hint's decoder and grammar are loaded now)
  if (n < EARS_RATE_HZ / 10) return { text: '', path: '', rejected: true };
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = at8k[i] / 32768;
  d.start();
  d.process_audio(f, false, true);
  d.stop();
  const path = d.get_text();
  const r = readPath(path);
  return { text: r.text, path, rejected: r.rejected };
}

/** The decoder for this hint's grammar, set to it. */
async function decoderFor(hint: ListenHint | undefined): Promise<Decoder> {
  const slot = decoders[isFocused(hint) ? 'focused' : 'open'];
  const d = await (slot.decoder ??= load());
  const g = buildGrammar(hint, (w) => d.lookup_word(w) !== null);
  if (g.key !== slot.key) { d.set_grammar(g.jsgf); slot.key = g.key; }
  return d;
}

/**
 * The grammar recogniser (soundswallower: PocketSphinx in WebAssembly, with its 8 kHz telephone acoustic model and
 * English dictionary), run in the thread that imports this (a speech worker). Two decoders per thread, loaded on
 * first use: one for one-answer grammars (a field or yes/no asked: cheap to switch, 40-110 ms), one that keeps the
 * last grammar of several answers in a sentence (about a second to compile on this machine class, so never
 * recompiled for a switch between turns of calls at different stages). A grammar is rebuilt only when the turn's
 * hint changes it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import createModule, { type Decoder, type SoundSwallowerModule } from 'soundswallower';
import type { ListenHint } from '../../adapters/types.js';
import { resample } from '../../audio/index.js';
import { suppressNoise } from './denoise.js';
import { buildGrammar, garbageWords, isOneAnswer, type TurnGrammar } from './grammar.js';
import { leftOutMs, MAX_LEFT_OUT_MS } from './left_out.js';
import { holdsUnheardName, readPath } from './reading.js';
import { suppressLineNoise } from './rnnoise.js';
import { FramePowers, lineSnrDb, MIN_WORDS_OVER_FLOOR_DB, wordsOverFloorDb } from './stand_out.js';
import { EXTRA_PRONUNCIATIONS } from './vocabulary.js';

/** the acoustic model's rate: wideband audio is brought down to it */
export const EARS_RATE_HZ = 8000;
/** longest turn recognised (the detector's own cap is 30 s); the rest is not decoded */
export const MAX_TURN_SECONDS = 30;
/**
 * Under this, a turn's noise is suppressed by RNNoise, else by the Wiener filter: RNNoise hears more in noise, not on
 * clean lines (bench/README.md). A live turn is suppressed as its call's last turn was (live.ts).
 */
const NOISY_LINE_SNR_DB = 30;

const decoders: Record<'one' | 'several', { decoder?: Promise<Decoder>; key?: string }> = { one: {}, several: {} };
/** one WebAssembly instance per thread: its decoders share it (a decoder holds its own copy of the model) */
let engine: Promise<SoundSwallowerModule> | undefined;

/** A decoder with the model, the dictionary and the added words loaded, and no grammar yet. */
export async function newDecoder(): Promise<Decoder> {
  const ss = await (engine ??= createModule());
  const model = join(dirname(createRequire(import.meta.url).resolve('soundswallower')), 'model', 'en-us');
  const d = new ss.Decoder({ hmm: model, dict: join(model, 'dict.txt'), samprate: EARS_RATE_HZ, nfft: 256, loglevel: 'FATAL' });
  await d.initialize();
  d.add_words(...EXTRA_PRONUNCIATIONS.map(([w, p]) => [w, p] as [string, string]), ...garbageWords());
  return d;
}

/**
 * Recognises a turn against its hint's grammar. A turn asked one field whose reading leaves speech out (the caller
 * said more than one answer) is heard again with several answers in a sentence: "my name is Arjun and my budget is
 * one crore" to the name question. Only such turns pay for the second, larger search.
 */
export async function recognise(pcm: Int16Array, sampleRateHz: number, hint?: ListenHint): Promise<Heard & { noisyLine: boolean }> {
  const at8k = sampleRateHz === EARS_RATE_HZ ? pcm : resample(pcm, sampleRateHz, EARS_RATE_HZ);
  const n = Math.min(at8k.length, MAX_TURN_SECONDS * EARS_RATE_HZ);
  const d = await decoderFor(hint);
  // under 100 ms: nothing to recognise (an empty task is a warm-up: the hint's decoder and grammar are loaded now)
  if (n < EARS_RATE_HZ / 10) return { text: '', path: '', rejected: true, noisyLine: false };
  const turn = at8k.subarray(0, n);
  const powers = new FramePowers();
  powers.push(turn);
  const noisyLine = isNoisyLine(powers.powers);
  const clean = toFloat(suppressTurnNoise(turn, noisyLine));
  const heard = decodeTurn(d, clean, powers.powers);
  if (!heard.leftOut || !isOneAnswer(hint)) return { ...heard, noisyLine };
  return { ...decodeTurn(await decoderFor(severalAnswers(hint)), clean, powers.powers), noisyLine };
}

/**
 * Whether a turn's line is noisy (its 10 ms frame powers, and those of the line's quiet before it when known): its
 * noise is then suppressed by RNNoise.
 */
export const isNoisyLine = (powers: number[], quietBefore?: number[]): boolean => lineSnrDb(powers, quietBefore) < NOISY_LINE_SNR_DB;

/** A whole turn (8 kHz) with its line's noise suppressed, by the suppressor that suits the line (`isNoisyLine`). */
export const suppressTurnNoise = (turn: Int16Array, noisyLine: boolean): Int16Array =>
  (noisyLine ? suppressLineNoise(turn, EARS_RATE_HZ) : suppressNoise(turn));

/** The hint of a turn heard again with several answers: the names it adds, no asked field. */
export const severalAnswers = (hint: ListenHint | undefined): ListenHint => ({ open: hint?.open ?? [], ...(hint?.names ? { names: hint.names } : {}) });

function decodeTurn(d: Decoder, clean: Float32Array, powers: number[]): Heard {
  d.start();
  d.process_audio(clean, false, true);
  d.stop();
  return heardFrom(d, powers);
}

/** leftOut: rejected because pauses in the reading hold speech (more was said than the grammar's path) */
export interface Heard { text: string; path: string; rejected: boolean; leftOut?: boolean }

/** The decoder's word path read into the dialog's text, or rejected. */
function heardPath(path: string): Heard {
  const r = readPath(path);
  return { text: r.text, path, rejected: r.rejected };
}

/**
 * What a decoder that just stopped heard: its path read; rejected too when the words do not rise out of the noise,
 * or when its pauses hold speech the path leaves out.
 */
export function heardFrom(d: Decoder, powers: number[]): Heard {
  const heard = heardPath(d.get_text());
  // an unheard name may be a listed one said with more answers than the turn's grammar holds: its pauses tell
  if (heard.rejected && !holdsUnheardName(heard.path)) return heard;
  const segments = d.get_alignment().w ?? []; // serialised by the decoder: read once for both checks
  if (wordsOverFloorDb(segments, powers) < MIN_WORDS_OVER_FLOOR_DB) return { text: '', path: heard.path, rejected: true };
  if (leftOutMs(segments, powers) > MAX_LEFT_OUT_MS) return { text: '', path: heard.path, rejected: true, leftOut: true };
  return heard;
}

/** PCM16 as the decoder's float samples in [-1, 1). */
export function toFloat(pcm: Int16Array): Float32Array {
  const f = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) f[i] = pcm[i] / 32768;
  return f;
}

/** The hint's grammar, with only the words this decoder's dictionary knows. */
export const grammarFor = (d: Decoder, hint: ListenHint | undefined): TurnGrammar => buildGrammar(hint, (w) => d.lookup_word(w) !== null);

/** Sets a grammar on a decoder unless it already holds it (`key` is the one it holds); returns the new key. */
export function setGrammar(d: Decoder, g: TurnGrammar, key: string | undefined): string {
  if (g.key !== key) d.set_grammar(g.jsgf);
  return g.key;
}

/** The decoder for this hint's grammar, set to it. */
async function decoderFor(hint: ListenHint | undefined): Promise<Decoder> {
  const slot = decoders[isOneAnswer(hint) ? 'one' : 'several'];
  const d = await (slot.decoder ??= newDecoder());
  slot.key = setGrammar(d, grammarFor(d, hint), slot.key);
  return d;
}

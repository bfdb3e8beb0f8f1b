/**
 * SimVoice encoder: text -> speech-like PCM16 that carries the text in band.
 *
 * Each character is a 70 ms dual-tone symbol (alphabet.ts) on top of voiced harmonics (f0 100 or 200 Hz), all under
 * a syllable-rate (4 Hz) energy envelope with 5 ms ramps at word edges. Words are separated by 80 ms pauses (a
 * speech detector bridges pauses up to ~150 ms, so an utterance stays one segment); utterances open with a START
 * symbol and close with an END symbol. That is ~13 characters per second, at about -22 dBFS RMS: loud enough for
 * any energy-based speech detector. The tones survive G.711 mu-law (about 35 dB SNR) and the resampler.
 */
import { SYM_END, SYM_START, TONES_A_HZ, TONES_B_HZ, textToWordSymbols } from './alphabet.js';
import { MulawFramer } from '../media/mulaw_framer.js';

export const SYMBOL_MS = 70;
export const WORD_GAP_MS = 80;
const RAMP_MS = 5;
const SYLLABLE_HZ = 4;
const TONE_AMPLITUDE = 2400;
/** amplitudes of the voiced harmonics k*f0 (k = 1..4) */
const HARMONIC_AMPLITUDES = [1000, 700, 500, 350];

export interface SimVoiceOptions {
  sampleRateHz?: number;
  /** voice name; decides the pitch (f0 100 Hz or 200 Hz) so agent and caller sound different */
  voice?: string;
}

function pitchOf(voice: string | undefined): number {
  if (!voice) return 100;
  let h = 0;
  for (const c of voice) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return h % 2 === 0 ? 100 : 200;
}

/** Harmonics must stay below group A (600 Hz) and on multiples of 100 Hz (see alphabet.ts). */
function harmonicsOf(f0: number): { hz: number; amp: number }[] {
  return HARMONIC_AMPLITUDES.map((amp, k) => ({ hz: f0 * (k + 1), amp })).filter((h) => h.hz <= 400);
}

/**
 * Every oscillator is a multiple of 100 Hz, so the carrier signal repeats every rate/100 samples (80 at 8 kHz):
 * one period per tone and one for the harmonics are tabulated once per rate/pitch, and rendering is lookups.
 */
interface Tables { period: number; toneA: Float64Array[]; toneB: Float64Array[]; harmonics: Float64Array; syllable: Float64Array }
const tableCache = new Map<string, Tables>();

function tablesFor(rate: number, f0: number): Tables {
  const key = `${rate}/${f0}`;
  let t = tableCache.get(key);
  if (t) return t;
  const period = rate / 100;
  const wave = (hz: number, amp: number) => Float64Array.from({ length: period }, (_, n) => amp * Math.sin((2 * Math.PI * hz * n) / rate));
  const harmonics = new Float64Array(period);
  for (const h of harmonicsOf(f0)) wave(h.hz, h.amp).forEach((v, n) => { harmonics[n] += v; });
  // syllable envelope |sin(pi * 4 Hz * t)| repeats every rate/4 samples
  const syllable = Float64Array.from({ length: rate / SYLLABLE_HZ }, (_, i) => 0.7 + 0.3 * Math.abs(Math.sin((Math.PI * SYLLABLE_HZ * i) / rate)));
  t = { period, toneA: TONES_A_HZ.map((hz) => wave(hz, TONE_AMPLITUDE)), toneB: TONES_B_HZ.map((hz) => wave(hz, TONE_AMPLITUDE)), harmonics, syllable };
  tableCache.set(key, t);
  return t;
}

/** Renders one word (symbol list) into `out` from `offset`; returns samples written. */
function renderWord(out: Int16Array, offset: number, symbols: number[], rate: number, f0: number, t0: number): number {
  const tab = tablesFor(rate, f0);
  const perSymbol = Math.round((rate * SYMBOL_MS) / 1000);
  const total = perSymbol * symbols.length;
  const ramp = Math.round((rate * RAMP_MS) / 1000);
  for (let s = 0; s < symbols.length; s++) {
    const a = tab.toneA[symbols[s] >> 3];
    const b = tab.toneB[symbols[s] & 7];
    for (let j = 0; j < perSymbol; j++) {
      const i = s * perSymbol + j;
      const p = (t0 + i) % tab.period; // absolute sample index keeps every oscillator phase-continuous across words
      const edge = i < ramp ? i / ramp : total - 1 - i < ramp ? (total - 1 - i) / ramp : 1;
      out[offset + i] = Math.round((a[p] + b[p] + tab.harmonics[p]) * tab.syllable[i % tab.syllable.length] * edge);
    }
  }
  return total;
}

/** Word-by-word PCM chunks of an utterance (each chunk = one word plus its trailing pause). */
export function* simVoiceChunks(text: string, opts: SimVoiceOptions = {}): Generator<Int16Array> {
  const rate = opts.sampleRateHz ?? 8000;
  if (rate % 100 !== 0) throw new RangeError(`SimVoice needs a sample rate divisible by 100 Hz, got ${rate}`);
  const f0 = pitchOf(opts.voice);
  const words = textToWordSymbols(text);
  if (words.length === 0) return;
  words[0].unshift(SYM_START);
  words[words.length - 1].push(SYM_END);
  const perSymbol = Math.round((rate * SYMBOL_MS) / 1000);
  const gap = Math.round((rate * WORD_GAP_MS) / 1000);
  let t0 = 0;
  for (let w = 0; w < words.length; w++) {
    const isLast = w === words.length - 1;
    const chunk = new Int16Array(perSymbol * words[w].length + (isLast ? 0 : gap));
    const written = renderWord(chunk, 0, words[w], rate, f0, t0);
    t0 += written + (isLast ? 0 : gap);
    yield chunk;
  }
}

/** Whole utterance as one PCM16 array. Empty or uncarriable text gives an empty array. */
export function encodeSimVoice(text: string, opts: SimVoiceOptions = {}): Int16Array {
  const chunks = [...simVoiceChunks(text, opts)];
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

/** Duration in ms of the SimVoice rendering of `text`. */
export function simVoiceDurationMs(text: string): number {
  const words = textToWordSymbols(text);
  if (words.length === 0) return 0;
  const symbols = words.reduce((n, w) => n + w.length, 0) + 2;
  return symbols * SYMBOL_MS + (words.length - 1) * WORD_GAP_MS;
}

/** Ready-to-send telephone frames: G.711 mu-law, 20 ms (160 bytes at 8 kHz), last frame padded with silence. */
export function simVoiceMulawFrames(text: string, opts: { voice?: string } = {}): Uint8Array[] {
  const framer = new MulawFramer();
  return [...framer.push(encodeSimVoice(text, { voice: opts.voice, sampleRateHz: 8000 })), ...framer.flush()];
}

/**
 * Whether the words the recogniser heard stand out of the line's noise. On noise alone (a hiss, a fan, an open line)
 * the grammar's best path can be one short word ("yes", "house") with fillers around it, and the garbage path does
 * not always beat it; words that were said are louder than the quiet between them. The floor is the turn's quiet
 * (a low percentile of its 10 ms frames: the pauses and edges of a turn), measured on the audio as it came, before
 * noise suppression.
 */
import type { Segment } from 'soundswallower';
import { GARBAGE_PREFIX } from './grammar.js';

const FRAME_SAMPLES = 80; // 10 ms at 8 kHz: the decoder's frame rate
/** the floor: this share of the turn's frames are at or under it */
const FLOOR_PERCENTILE = 0.1;
/** words this far over the floor were spoken (stationary noise stays within 1-2 dB of its own 10th percentile) */
export const MIN_WORDS_OVER_FLOOR_DB = 6;

/** the decoder's own pre-emphasis: powers weigh frequencies as its features do (a rumble counts little) */
const PRE_EMPHASIS = 0.97;

/** Power per 10 ms frame of a turn's 8 kHz audio, pre-emphasised, fed in pieces of any size. */
export class FramePowers {
  readonly powers: number[] = [];
  private sum = 0;
  private count = 0;
  private last = 0;

  push(pcm: Int16Array): void {
    for (let i = 0; i < pcm.length; i++) {
      const v = pcm[i] - PRE_EMPHASIS * this.last;
      this.last = pcm[i];
      this.sum += v * v;
      if (++this.count === FRAME_SAMPLES) { this.powers.push(this.sum / FRAME_SAMPLES); this.sum = 0; this.count = 0; }
    }
  }
}

/** A word of the reading that was said: not silence, a noise filler, a grammar joint or a garbage phone. */
export const isSaidWord = (t: string): boolean => !/^[<([]/.test(t) && !t.startsWith(GARBAGE_PREFIX);

/**
 * dB by which the heard words' frames rise over the turn's floor; Infinity when no word was placed in time.
 * `segments` are the decoder's last alignment (`get_alignment().w`).
 */
export function wordsOverFloorDb(segments: Segment[], powers: number[]): number {
  const words = segments.filter((w) => isSaidWord(w.t));
  if (words.length === 0 || powers.length === 0) return Infinity;
  let sum = 0, n = 0;
  for (const w of words) {
    const last = Math.min(powers.length, Math.round((w.b + w.d) * 100));
    for (let f = Math.max(0, Math.round(w.b * 100)); f < last; f++) { sum += powers[f]; n++; }
  }
  if (n === 0) return Infinity;
  return 10 * Math.log10((sum / n + 1) / (turnFloor(powers) + 1));
}

/** The share of a turn's frames at or under its speech level (its loud frames: the words' vowels). */
const SPEECH_PERCENTILE = 0.9;

/**
 * How far a turn's speech stands over the line's quiet, in dB: its loud frames over the floor of its frames and of
 * `quietBefore`, the line's frames before the turn (a turn of continuous speech has few quiet frames of its own: its
 * floor would be the dips between words). It follows the SNR a noise was mixed at (bench/README.md).
 */
export function lineSnrDb(powers: number[], quietBefore: number[] = []): number {
  if (powers.length === 0) return Infinity;
  const sorted = [...powers].sort((a, b) => a - b);
  return 10 * Math.log10((sorted[Math.floor(SPEECH_PERCENTILE * (sorted.length - 1))] + 1) / (turnFloor([...quietBefore, ...powers]) + 1));
}

/** The turn's quiet: the power this share of its frames are at or under (the pauses and edges of a turn). */
export function turnFloor(powers: number[]): number {
  const sorted = [...powers].sort((a, b) => a - b);
  return sorted[Math.floor(FLOOR_PERCENTILE * (sorted.length - 1))];
}

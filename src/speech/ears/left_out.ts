/**
 * Speech a reading leaves out. The decoder may place silence or a noise filler over words it has no path for: an
 * answer asked for one field with a second answer after it ("my name is Arjun [and my budget is one crore]"), or
 * everyday speech read as a short answer with the rest of the sentence inside a pause ("Michael [...] thanks"). A
 * pause that was said is not quiet: its frames are as loud as the heard words. Powers are those of the turn as it
 * came (stand_out.ts): a frame counts when it is near the words' level and over the line's noise as words must be.
 */
import type { Segment } from 'soundswallower';
import { isSaidWord, MIN_WORDS_OVER_FLOOR_DB, turnFloor } from './stand_out.js';

/** a frame within this many dB of the heard words' median frame, and over the line's noise as words are, is speech */
const SPEECH_LEVEL_DB = 10;
/** speech frames one pause may hold before the reading is said to leave speech out: about a short syllable */
export const MAX_LEFT_OUT_MS = 150;

const db = (power: number) => 10 * Math.log10(power + 1);
const isPause = (t: string) => /^[<[]/.test(t); // <sil>, [NOISE], [SPEECH]; not (NULL), the grammar's joints

/** The most speech-level milliseconds inside one pause or filler of a reading's segments (0 when none). */
export function leftOutMs(segments: Segment[], powers: number[]): number {
  const frames = (s: { b: number; d: number }) => {
    const out: number[] = [];
    for (let f = Math.max(0, Math.round(s.b * 100)); f < Math.min(powers.length, Math.round((s.b + s.d) * 100)); f++) out.push(db(powers[f]));
    return out;
  };
  const words = segments.filter((s) => isSaidWord(s.t)).flatMap(frames).sort((a, b) => a - b);
  if (words.length === 0) return 0;
  const speech = Math.max(words[Math.floor(words.length / 2)] - SPEECH_LEVEL_DB, db(turnFloor(powers)) + MIN_WORDS_OVER_FLOOR_DB);
  let most = 0;
  for (const s of segments) if (isPause(s.t)) most = Math.max(most, frames(s).filter((p) => p >= speech).length);
  return most * 10;
}

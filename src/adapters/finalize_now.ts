/**
 * A speech-to-text turn ends when the session says so: `finalize` is called at the turn's end, and only its result
 * waits for the turns before. Called once the turn before was heard, a slow recogniser's turn took in the caller's
 * next words too, and each such merged turn cost more to hear.
 */
import type { AdapterCallOptions, SttStream, TranscriptResult } from './types.js';

/** Finalizes the stream's turn now; a throw becomes the rejection, which the caller handles when it awaits it. */
export function finalizeNow(stt: SttStream, opts: AdapterCallOptions): Promise<TranscriptResult> {
  let heard: Promise<TranscriptResult>;
  try { heard = stt.finalize(opts); } catch (err) { heard = Promise.reject(err); }
  heard.catch(() => {}); // awaited later, after the turns before: never an unhandled rejection meanwhile
  return heard;
}

/**
 * A speech-to-text turn ends when the session says so: `finalize` is called at the turn's end, and only its result
 * waits for the turns before. Called once the turn before was heard, a slow recogniser's turn took in the caller's
 * next words too, and each such merged turn cost more to hear. The deadline still runs from when the turn's result
 * is waited for, as before: turns behind one slow stretch are not each late (bench/README.md).
 */
import { withDeadline } from './deadline.js';
import type { SttStream, TranscriptResult } from './types.js';

/** Finalizes the stream's turn now; the returned function waits for its result, within `timeoutMs` from that call. */
export function finalizeNow(stt: SttStream, timeoutMs: number): () => Promise<TranscriptResult> {
  const stop = new AbortController();
  let heard: Promise<TranscriptResult>;
  try { heard = stt.finalize({ signal: stop.signal, timeoutMs: 0 }); } catch (err) { heard = Promise.reject(err); }
  heard.catch(() => {}); // awaited later, after the turns before: never an unhandled rejection meanwhile
  return () => withDeadline('stt', { timeoutMs }, (signal) => {
    signal.addEventListener('abort', () => stop.abort(signal.reason), { once: true }); // the recogniser stops too
    return heard;
  });
}

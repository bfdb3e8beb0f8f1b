/**
 * How a simulated callee's words become phone audio: its persona's offline voice (rendered on the speech pool, so
 * asynchronously), or SimVoice tone code (at once) with SIM_SPEECH=tones. Renders are kept (a few hundred lines at
 * most): personas say the same lines on every call, and the callee is the test's harness, not what it measures.
 */
import { simVoiceMulawFrames } from '../../simvoice/index.js';
import { offlineMulawFrames } from '../../speech/voice/phone_frames.js';

/** what simulated calls speak (SIM_SPEECH) */
export type SimSpeech = 'offline' | 'tones';

const KEPT_RENDERS = 256;
const kept = new Map<string, Promise<Uint8Array[]>>();

export function calleeFrames(speech: SimSpeech, text: string, voice: string): Uint8Array[] | Promise<Uint8Array[]> {
  if (speech === 'tones') return simVoiceMulawFrames(text);
  const key = `${voice}\n${text}`;
  let frames = kept.get(key);
  if (frames) kept.delete(key); // most recent last
  else {
    frames = offlineMulawFrames(text, voice);
    frames.catch(() => kept.delete(key));
    if (kept.size >= KEPT_RENDERS) kept.delete(kept.keys().next().value!);
  }
  kept.set(key, frames);
  return frames;
}

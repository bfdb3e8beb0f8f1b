/**
 * A whole line in an offline voice as 20 ms mu-law frames for a phone line, rendered on the speech pool's voice
 * thread: what a simulated callee says, and the spoken fallback's last resort.
 */
import { MulawFramer } from '../../media/mulaw_framer.js';
import { runSpeech } from '../pool.js';
import { sentences } from './sentences.js';
import { offlineVoice } from './voices.js';

export async function offlineMulawFrames(text: string, voice: string, signal?: AbortSignal): Promise<Uint8Array[]> {
  const framer = new MulawFramer();
  const frames: Uint8Array[] = [];
  for (const s of sentences(text)) {
    const r = await runSpeech({ kind: 'speak', text: s, voice: offlineVoice(voice), sampleRateHz: 8000 }, signal);
    frames.push(...framer.push(new Int16Array(r.pcm)));
  }
  return [...frames, ...framer.flush()];
}

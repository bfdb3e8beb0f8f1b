/** A sentence in an offline voice at the rate the caller needs (the carrier's 8 kHz, the demo page's 16 kHz). */
import { resample } from '../../audio/index.js';
import { fliteRender } from './flite.js';
import type { OfflineVoice } from './voices.js';

export function renderAt(text: string, voice: OfflineVoice, sampleRateHz: number): Int16Array {
  let out: { pcm: Int16Array; sampleRateHz: number };
  try {
    out = fliteRender(text, voice);
  } catch (err) {
    // a text with nothing to say (punctuation only) leaves an empty WAV behind
    if (err instanceof Error && 'code' in err && err.code === 'audio_empty') return new Int16Array(0);
    throw err;
  }
  return out.sampleRateHz === sampleRateHz || out.pcm.length === 0 ? out.pcm : resample(out.pcm, out.sampleRateHz, sampleRateHz);
}

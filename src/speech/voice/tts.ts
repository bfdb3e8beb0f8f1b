/**
 * The offline voice as a text-to-speech adapter: Flite voices bundled with npm, rendered on the speech pool's
 * threads, one sentence at a time at the requested rate. The next sentence renders while the current one plays out,
 * and an abort (barge-in, hang-up) drops whatever is queued or unsent.
 */
import { streamWithDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type TextToSpeechAdapter } from '../../adapters/types.js';
import { runSpeech, warmVoice } from '../pool.js';
import { sentences } from './sentences.js';
import { offlineVoice } from './voices.js';

/** chunk size handed to the caller: 100 ms, so playout starts at once and an abort lands between chunks */
const CHUNK_MS = 100;

export class OfflineTts implements TextToSpeechAdapter {
  /** starts the voice's thread and compiles Flite there (seconds on a cold thread, once per thread) */
  async warm(): Promise<void> { await warmVoice(); }

  synthesize(req: { text: string; voice: string; language: string; sampleRateHz: number }, opts?: AdapterCallOptions): AsyncIterable<Int16Array> {
    if (req.sampleRateHz % 100 !== 0 || req.sampleRateHz <= 0 || req.sampleRateHz > 48_000) {
      throw new AdapterError('tts', 'invalid', `unsupported sample rate ${req.sampleRateHz} Hz (a multiple of 100, at most 48000)`);
    }
    const voice = offlineVoice(req.voice);
    const parts = sentences(req.text);
    const rendered = streamWithDeadline('tts', opts, async function* (signal) {
      const render = (text: string) => runSpeech({ kind: 'speak', text, voice, sampleRateHz: req.sampleRateHz }, signal);
      let next = parts.length ? render(parts[0]) : undefined;
      for (let i = 0; next; i++) {
        const done = await next;
        next = i + 1 < parts.length ? render(parts[i + 1]) : undefined;
        next?.catch(() => {}); // an abort rejects the look-ahead too; it is awaited (or dropped) on the next turn
        const pcm = new Int16Array(done.pcm);
        const step = (req.sampleRateHz * CHUNK_MS) / 1000;
        for (let o = 0; o < pcm.length; o += step) {
          if (signal.aborted) return;
          yield pcm.subarray(o, Math.min(pcm.length, o + step));
        }
      }
    });
    return (async function* () {
      // a cold thread compiles Flite first (seconds on a busy machine): outside the deadline, as the ears load
      await warmVoice().catch(() => {});
      if (!opts?.signal?.aborted) yield* rendered;
    })();
  }
}

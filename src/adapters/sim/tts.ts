/**
 * Simulated text-to-speech: renders SimVoice (speech-like audio carrying the text in band) word by word, so the
 * first chunk is ready after one word and a barge-in abort stops the stream between words.
 */
import { simVoiceChunks } from '../../simvoice/index.js';
import { streamWithDeadline } from '../deadline.js';
import { AdapterError, type AdapterCallOptions, type TextToSpeechAdapter } from '../types.js';

export class SimTts implements TextToSpeechAdapter {
  synthesize(req: { text: string; voice: string; language: string; sampleRateHz: number }, opts?: AdapterCallOptions): AsyncIterable<Int16Array> {
    if (req.sampleRateHz % 100 !== 0 || req.sampleRateHz <= 0) {
      throw new AdapterError('tts', 'invalid', `unsupported sample rate ${req.sampleRateHz} Hz (must be a multiple of 100)`);
    }
    return streamWithDeadline('tts', opts, async function* (signal) {
      for (const chunk of simVoiceChunks(req.text, { sampleRateHz: req.sampleRateHz, voice: req.voice })) {
        if (signal.aborted) return;
        yield chunk;
        await new Promise((r) => setImmediate(r)); // lets an abort land between words
      }
    });
  }
}

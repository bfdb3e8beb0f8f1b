/**
 * Simulated speech-to-text: really recognises SimVoice audio (src/simvoice) from the PCM it is fed, so the
 * simulated callee's words are recognised after mu-law, resampling and any chunking. Audio without a SimVoice
 * payload (real recorded speech, noise) transcribes as '' with final=true: this is not a speech recogniser.
 */
import { SimVoiceDecoder } from '../../simvoice/index.js';
import { withDeadline } from '../deadline.js';
import { AdapterError, type AdapterCallOptions, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../types.js';

class SimSttStream implements SttStream {
  readonly #decoder: SimVoiceDecoder;
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  #closed = false;

  constructor(sampleRateHz: number) {
    this.#decoder = new SimVoiceDecoder(sampleRateHz);
    this.#decoder.onWord((w) => this.#emit({ text: w.text, final: false, startMs: w.startMs, endMs: w.endMs }));
  }

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed) return;
    this.#decoder.write(pcm, atMs);
  }

  finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    return withDeadline('stt', opts, async () => {
      if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
      const d = this.#decoder.take();
      const result: TranscriptResult = { text: d.text, final: true, startMs: d.startMs, endMs: d.endMs, confidence: d.text ? 1 : 0 };
      this.#emit(result);
      return result;
    });
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }

  close(): void { this.#closed = true; this.#listeners.length = 0; }

  #emit(r: TranscriptResult): void {
    for (const l of this.#listeners) l(r);
  }
}

export class SimStt implements SpeechToTextAdapter {
  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream {
    return new SimSttStream(opts.sampleRateHz);
  }

  transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number } & AdapterCallOptions): Promise<TranscriptResult> {
    return withDeadline('stt', opts, async () => {
      const d = new SimVoiceDecoder(opts.sampleRateHz);
      d.write(pcm, 0);
      const r = d.finish();
      return { text: r.text, final: true, startMs: r.startMs, endMs: r.endMs, confidence: r.text ? 1 : 0 };
    });
  }
}

/**
 * The simulator's speech-to-text with SIM_SPEECH=tones (the embedded default uses the offline ears alone,
 * src/speech/ears): the SimVoice decoder (src/simvoice) reads tone-code callees exactly, and a turn without tone code
 * (a person on the demo page, a recording) goes to the grammar recogniser on the speech pool, steered by the
 * dialog's listen hint.
 */
import { SimVoiceDecoder } from '../../simvoice/index.js';
import { OfflineStt, type OfflineSttStream } from '../../speech/ears/stt.js';
import { AdapterError, type AdapterCallOptions, type ListenHint, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../types.js';

class SimSttStream implements SttStream {
  readonly #decoder: SimVoiceDecoder;
  readonly #ears: OfflineSttStream;
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  #closed = false;

  constructor(sampleRateHz: number, ears: OfflineSttStream) {
    this.#ears = ears;
    this.#decoder = new SimVoiceDecoder(sampleRateHz);
    this.#decoder.onWord((w) => this.#emit({ text: w.text, final: false, startMs: w.startMs, endMs: w.endMs }));
  }

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed) return;
    this.#decoder.write(pcm, atMs);
    this.#ears.write(pcm, atMs);
  }

  expect(hint: ListenHint): void { this.#ears.expect(hint); }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
    // SimVoice (a simulated callee), decoded or not yet: never the ears' business
    const code = this.#decoder.carriesCode;
    const d = this.#decoder.take();
    if (!d.text && !code) return this.#ears.finalize(opts); // emits to the listeners itself
    this.#ears.discard();
    const result: TranscriptResult = { text: d.text, final: true, startMs: d.startMs, endMs: d.endMs, confidence: d.text ? 1 : 0 };
    this.#emit(result);
    return result;
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); this.#ears.onResult(listener); }

  close(): void { this.#closed = true; this.#listeners.length = 0; this.#ears.close(); }

  #emit(r: TranscriptResult): void {
    for (const l of this.#listeners) l(r);
  }
}

export class SimStt implements SpeechToTextAdapter {
  readonly #ears = new OfflineStt();

  open(opts: { callId: string; language: string; sampleRateHz: number }): SttStream {
    return new SimSttStream(opts.sampleRateHz, this.#ears.open(opts));
  }

  transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number; hint?: ListenHint } & AdapterCallOptions): Promise<TranscriptResult> {
    const d = new SimVoiceDecoder(opts.sampleRateHz);
    d.write(pcm, 0);
    const code = d.carriesCode;
    const r = d.finish();
    if (r.text || code) return Promise.resolve({ text: r.text, final: true, startMs: r.startMs, endMs: r.endMs, confidence: 1 });
    return this.#ears.transcribe(pcm, opts);
  }
}

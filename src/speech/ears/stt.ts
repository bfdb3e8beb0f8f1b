/**
 * The offline ears as a speech-to-text adapter: a grammar recogniser on the speech pool's threads (never the event
 * loop). A call's stream keeps the caller audio written since the last finalize (at most MAX_TURN_SECONDS) and
 * recognises it, cut to its speech, when the session finalizes the turn; `expect(hint)` steers the next turn's
 * grammar. Results are final only: a grammar recogniser has no useful partials for barge-in decisions.
 */
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type ListenHint, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import { concatPcm } from '../../audio/index.js';
import { runSpeech, warmEars } from '../pool.js';
import { MAX_TURN_SECONDS } from './recogniser.js';
import { trimToSpeech } from './trim.js';

/**
 * Recognises one turn's audio: '' when it holds no speech (at once, without the recogniser) or nothing in it fits the
 * grammar (rejected). A cold recogniser loads first, outside the deadline that `work` runs under.
 */
export async function hearTurn(pcm: Int16Array, sampleRateHz: number, hint: ListenHint | undefined,
  underDeadline: (work: (signal: AbortSignal) => Promise<string>) => Promise<string>): Promise<string> {
  const speech = trimToSpeech(pcm, sampleRateHz).slice(); // a dedicated buffer, transferred
  if (speech.length === 0) return '';
  await warmEars();
  return underDeadline(async (signal) =>
    (await runSpeech({ kind: 'hear', pcm: speech.buffer, sampleRateHz, hint }, signal, [speech.buffer])).text);
}

export class OfflineSttStream implements SttStream {
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  #chunks: Int16Array[] = [];
  #samples = 0;
  #startMs = -1;
  #endMs = 0;
  #hint: ListenHint | undefined;
  #closed = false;

  constructor(private readonly sampleRateHz: number) {}

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed) return;
    if (this.#startMs < 0) this.#startMs = atMs;
    this.#endMs = atMs + (pcm.length * 1000) / this.sampleRateHz;
    this.#chunks.push(pcm.slice());
    this.#samples += pcm.length;
    // keep the latest MAX_TURN_SECONDS: a turn never runs longer (the detector ends it), older audio is not speech of it
    while (this.#samples - this.#chunks[0].length >= MAX_TURN_SECONDS * this.sampleRateHz) this.#samples -= this.#chunks.shift()!.length;
  }

  expect(hint: ListenHint): void { this.#hint = hint; }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
    const pcm = concatPcm(this.#chunks.length ? this.#chunks : [new Int16Array(0)]);
    const startMs = Math.max(0, this.#startMs), endMs = this.#endMs;
    this.discard();
    const text = await hearTurn(pcm, this.sampleRateHz, this.#hint, (work) => withDeadline('stt', opts, work));
    const result: TranscriptResult = { text, final: true, startMs, endMs, confidence: text ? 1 : 0 };
    for (const l of this.#listeners) l(result);
    return result;
  }

  /** Forgets the audio written since the last finalize (another reader transcribed that turn). */
  discard(): void { this.#chunks = []; this.#samples = 0; this.#startMs = -1; }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }
  close(): void { this.#closed = true; this.#listeners.length = 0; this.#chunks = []; }
}

export class OfflineStt implements SpeechToTextAdapter {
  open(opts: { callId: string; language: string; sampleRateHz: number }): OfflineSttStream {
    void warmEars().catch(() => {}); // a call's first turn comes seconds later: the recogniser loads meanwhile
    return new OfflineSttStream(opts.sampleRateHz);
  }

  async transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number; hint?: ListenHint } & AdapterCallOptions): Promise<TranscriptResult> {
    const text = await hearTurn(pcm, opts.sampleRateHz, opts.hint, (work) => withDeadline('stt', opts, work));
    return { text, final: true, startMs: 0, endMs: Math.round((pcm.length * 1000) / opts.sampleRateHz), confidence: text ? 1 : 0 };
  }
}

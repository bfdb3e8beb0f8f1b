/**
 * Speech-to-text over an OpenAI-compatible transcription endpoint (POST {OPENAI_BASE_URL}/audio/transcriptions,
 * multipart: file = a WAV of the utterance, model, language, response_format=json -> {"text": ...}). Hosted
 * OpenAI and self-hosted servers that speak the same API both work. It recognises whole utterances only: the
 * demo loop's audio turns (transcribe) and, as a call fallback, a stream that keeps the caller's audio since the
 * last finalize and sends it when the turn ends (no interim results, so barge-in waits for the caller to pause).
 */
import { writeWav } from '../../audio/wav.js';
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import type { Logger } from '../../log.js';
import { fetchWithRetry } from './retry.js';

export interface OpenAiSttOptions {
  apiKey: string;
  /** e.g. https://api.openai.com/v1 or http://localhost:8000/v1 */
  baseUrl: string;
  model: string;
  log: Logger;
  /** retries after the first attempt (429, 5xx, connection failures) */
  maxRetries?: number;
  /** the longest utterance a call stream keeps, s: older audio is dropped (a fallback, not a recorder) */
  maxUtteranceSeconds?: number;
}

/** Audio whose loudest sample is below this is digital silence: nothing is sent (Whisper invents words for it). */
const SILENCE_PEAK = 32;

/** a frame this loud is speech, not line noise (about -30 dBFS) */
const LOUD_PEAK = 1000;
/** frames kept before the first loud one (soft onsets), at 20 ms each: 1 s */
const LEAD_IN_CHUNKS = 50;

/** OpenAI wants ISO-639-1 ("en", "hi"); calls carry BCP-47 tags ("en-IN"). */
export const isoLanguage = (tag: string) => tag.split(/[-_]/)[0].toLowerCase();

function peak(pcm: Int16Array): number {
  let m = 0;
  for (let i = 0; i < pcm.length; i++) { const a = Math.abs(pcm[i]); if (a > m) m = a; }
  return m;
}

export class OpenAiStt implements SpeechToTextAdapter {
  readonly #url: string;
  constructor(private readonly o: OpenAiSttOptions) {
    this.#url = `${o.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  }

  open(opts: { callId: string; language: string; sampleRateHz: number }): BufferedSttStream {
    return new BufferedSttStream(this, opts.language, opts.sampleRateHz, (this.o.maxUtteranceSeconds ?? 30) * opts.sampleRateHz);
  }

  transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number } & AdapterCallOptions): Promise<TranscriptResult> {
    const durationMs = Math.round((pcm.length / opts.sampleRateHz) * 1000);
    return withDeadline('stt', opts, async (signal) => {
      const text = peak(pcm) < SILENCE_PEAK ? '' : await this.#request(pcm, opts.sampleRateHz, opts.language, signal, opts.timeoutMs);
      return { text, final: true, startMs: 0, endMs: durationMs };
    });
  }

  async #request(pcm: Int16Array, rateHz: number, language: string, signal: AbortSignal, timeoutMs?: number): Promise<string> {
    const wav = writeWav({ sampleRateHz: rateHz, channels: [pcm] });
    const started = performance.now();
    const res = await fetchWithRetry(this.#url, () => {
      const form = new FormData();
      form.append('file', new Blob([wav as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'utterance.wav');
      form.append('model', this.o.model);
      form.append('language', isoLanguage(language));
      form.append('response_format', 'json');
      return { method: 'POST', headers: { authorization: `Bearer ${this.o.apiKey}` }, body: form };
    }, { maxRetries: this.o.maxRetries ?? 2, signal, deadlineAt: timeoutMs ? started + timeoutMs : Infinity, apiKey: this.o.apiKey });
    const body = await res.json().catch(() => undefined) as { text?: unknown } | undefined;
    if (typeof body?.text !== 'string') throw new AdapterError('stt', 'failed', 'transcription endpoint answered without a text field', false);
    this.o.log.debug({ ms: Math.round(performance.now() - started), chars: body.text.length }, 'transcribed');
    return body.text.trim();
  }
}

/** A turn's audio as the buffer held it when the turn ended, and its media times. */
export interface BufferedTurn { chunks: Int16Array[]; samples: number; startMs: number; endMs: number }

/** The call fallback: the caller's audio since the last finalize, sent whole at the end of the turn. */
export class BufferedSttStream implements SttStream {
  #chunks: Int16Array[] = [];
  #samples = 0;
  #startMs?: number;
  #endMs = 0;
  #closed = false;
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];

  constructor(private readonly stt: OpenAiStt, private readonly language: string, private readonly rateHz: number,
    private readonly maxSamples: number) {}

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed) return;
    this.#startMs ??= atMs;
    this.#chunks.push(pcm.slice());
    this.#samples += pcm.length;
    this.#endMs = atMs + (pcm.length / this.rateHz) * 1000;
    while (this.#samples - this.#chunks[0].length >= this.maxSamples) {
      const dropped = this.#chunks.shift()!;
      this.#samples -= dropped.length;
      this.#startMs += (dropped.length / this.rateHz) * 1000;
    }
  }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
    return this.hear(this.cut(), opts);
  }

  /** Ends the turn now: its audio, kept for `hear`; the buffer starts over. */
  cut(): BufferedTurn {
    const turn = { chunks: this.#chunks, samples: this.#samples, startMs: this.#startMs ?? this.#endMs, endMs: this.#endMs };
    this.#chunks = [];
    this.#samples = 0;
    this.#startMs = undefined;
    return turn;
  }

  /** Transcribes a turn `cut` from this stream. */
  async hear({ chunks, samples, startMs: firstMs, endMs }: BufferedTurn, opts?: AdapterCallOptions): Promise<TranscriptResult> {
    // The buffer holds everything since the last turn, mostly the caller listening: send from a little before the
    // first loud frame, so the request (and Whisper's time) is the utterance's, not the agent's whole reply.
    const loud = chunks.findIndex((c) => peak(c) >= LOUD_PEAK);
    const from = loud === -1 ? 0 : Math.max(0, loud - LEAD_IN_CHUNKS);
    const skipped = chunks.slice(0, from).reduce((n, c) => n + c.length, 0);
    const pcm = new Int16Array(samples - skipped);
    let at = 0;
    for (const c of chunks.slice(from)) { pcm.set(c, at); at += c.length; }
    const startMs = firstMs + (skipped / this.rateHz) * 1000;
    const r = await this.stt.transcribe(pcm, { language: this.language, sampleRateHz: this.rateHz, ...opts });
    const result: TranscriptResult = { ...r, startMs, endMs };
    if (!this.#closed) for (const l of this.#listeners) l(result);
    return result;
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }

  close(): void { this.#closed = true; this.#chunks = []; this.#samples = 0; this.#listeners.length = 0; }
}

/**
 * What the simulated callee hears. Both ears decide by media time, from the agent audio's energy, when the agent's
 * turn is over (no agent speech for endOfTurnSilenceMs); they differ in how they know the words:
 * - `SubtitledEar` (calls that speak for real): the simulated carrier's side channel tells it each agent sentence as
 *   its audio is made, before that audio arrives; a sentence counts once its audio has started to play. A test
 *   persona is not what a simulated call tests, so it reads the words rather than recognising them.
 * - `CalleeEar` (SIM_SPEECH=tones): decodes the agent's SimVoice tone code.
 * The socket side feeds either the agent audio it plays and advances it with its own 20 ms clock:
 *
 *   ear.hear(pcm, atMs) -> [{ type: 'words', textSoFar }]            -> callee.duringAgentSpeech(textSoFar)
 *   ear.advance(nowMs)  -> [{ type: 'agent_turn_ended', text, atMs }] -> callee.reply(text)
 */
import { SimVoiceDecoder } from '../../simvoice/index.js';

export type EarEvent =
  | { type: 'words'; textSoFar: string }
  | { type: 'agent_turn_ended'; text: string; atMs: number };

/** frames quieter than this (RMS) are not agent speech; both voices speak at well over 1000 RMS */
const SPEECH_RMS = 300;

abstract class TurnEar {
  protected readonly pending: EarEvent[] = [];
  readonly #silenceMs: number;
  #lastSpeechEndMs = -1;
  #heardSinceTurn = false;

  constructor(readonly sampleRateHz: number, endOfTurnSilenceMs: number) { this.#silenceMs = endOfTurnSilenceMs; }

  /** Agent audio (PCM16) whose first sample plays at media time atMs. */
  hear(pcm: Int16Array, atMs: number): EarEvent[] {
    let energy = 0;
    for (let i = 0; i < pcm.length; i++) energy += pcm[i] * pcm[i];
    const loud = pcm.length > 0 && energy / pcm.length >= SPEECH_RMS * SPEECH_RMS;
    this.listen(pcm, atMs, loud);
    if (loud) {
      this.#lastSpeechEndMs = atMs + (pcm.length * 1000) / this.sampleRateHz;
      this.#heardSinceTurn = true;
    }
    return this.advance(atMs);
  }

  /** Moves the callee's clock to nowMs (media time); reports the end of the agent's turn once. */
  advance(nowMs: number): EarEvent[] {
    if (this.#heardSinceTurn && nowMs - this.#lastSpeechEndMs >= this.#silenceMs) {
      this.#heardSinceTurn = false;
      this.pending.push({ type: 'agent_turn_ended', text: this.takeText(), atMs: nowMs });
    }
    return this.pending.splice(0);
  }

  protected abstract listen(pcm: Int16Array, atMs: number, loud: boolean): void;
  /** the words of the turn that just ended, forgotten once taken */
  protected abstract takeText(): string;
}

/** Hears the agent's SimVoice tone code (SIM_SPEECH=tones). */
export class CalleeEar extends TurnEar {
  readonly #decoder: SimVoiceDecoder;

  constructor(opts: { sampleRateHz?: number; endOfTurnSilenceMs?: number } = {}) {
    super(opts.sampleRateHz ?? 8000, opts.endOfTurnSilenceMs ?? 600);
    this.#decoder = new SimVoiceDecoder(this.sampleRateHz);
    this.#decoder.onWord((w) => this.pending.push({ type: 'words', textSoFar: w.text }));
  }

  protected listen(pcm: Int16Array, atMs: number): void { this.#decoder.write(pcm, atMs); }
  protected takeText(): string { return this.#decoder.take().text; }
}

/** a spoken word's share of agent speech, ms: how far into a sentence the callee is while it plays */
const MS_PER_WORD = 300;

/** Reads the agent's words from the carrier's side channel, in step with the audio (calls that speak for real). */
export class SubtitledEar extends TurnEar {
  readonly #told: Array<{ words: string[]; atFrame: number }> = [];
  /** agent frames played (or dropped by a clear) so far */
  #frame = 0;
  #loudMsThisSentence = 0;
  #sentencesStarted = 0;
  #wordsReported = 0;

  constructor(opts: { sampleRateHz?: number; endOfTurnSilenceMs?: number } = {}) {
    super(opts.sampleRateHz ?? 8000, opts.endOfTurnSilenceMs ?? 600);
  }

  /** A sentence of the agent whose audio starts at or after frame `atFrame` of what the callee receives. */
  told(text: string, atFrame: number): void {
    const words = text.trim().split(/\s+/).filter(Boolean);
    if (words.length) this.#told.push({ words, atFrame });
  }

  /** Frames the carrier dropped unplayed (a clear): the sentences in them were cut. */
  skip(frames: number): void { this.#frame += frames; }

  protected listen(pcm: Int16Array, _atMs: number, loud: boolean): void {
    this.#frame++;
    if (!loud) return;
    // words so far: every word of the sentences before the one now playing, and that one's at MS_PER_WORD since
    // it started (a single estimate over the whole turn lags behind a long sentence, the disclosure, said slowly)
    const started = this.#started();
    if (started.length !== this.#sentencesStarted) { this.#sentencesStarted = started.length; this.#loudMsThisSentence = 0; }
    this.#loudMsThisSentence += (pcm.length * 1000) / this.sampleRateHz;
    const before = started.slice(0, -1).flatMap((s) => s.words);
    const current = started.at(-1)?.words ?? [];
    const words = [...before, ...current.slice(0, Math.floor(this.#loudMsThisSentence / MS_PER_WORD))];
    const n = words.length;
    if (n > this.#wordsReported) {
      this.#wordsReported = n;
      this.pending.push({ type: 'words', textSoFar: words.join(' ') });
    }
  }

  protected takeText(): string {
    const heard = this.#started();
    this.#told.splice(0, heard.length);
    this.#loudMsThisSentence = 0;
    this.#sentencesStarted = 0;
    this.#wordsReported = 0;
    return heard.map((s) => s.words.join(' ')).join(' ');
  }

  /** the told sentences whose audio has started to play (the oldest first) */
  #started(): Array<{ words: string[] }> {
    let n = 0;
    while (n < this.#told.length && this.#told[n].atFrame < this.#frame) n++;
    return this.#told.slice(0, n);
  }
}

/**
 * The offline ears as a speech-to-text adapter: a grammar recogniser on the speech pool's threads (never the event
 * loop). A call's stream keeps the caller audio written since the last finalize (at most MAX_TURN_SECONDS). Once the
 * session's detector says speech started, the turn is decoded live (live.ts): its audio goes to the ears' thread as
 * it comes, so the final text is ready soon after the end of turn. A turn that cannot be live (no decoder free, a
 * rate other than the model's, a lost thread) is recognised whole, cut to its speech, when the session finalizes it.
 * `expect(hint)` steers the turn's grammar. Results are final only: a grammar recogniser has no useful partials.
 */
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type ListenHint, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import { concatPcm } from '../../audio/index.js';
import { runSpeech, warmEars } from '../pool.js';
import { EARS_RATE_HZ, MAX_TURN_SECONDS, severalAnswers } from './recogniser.js';
import { trimToSpeech } from './trim.js';

/** A turn recognised: its text ('' when rejected or silent), and whether its line was noisy (unknown when it held no speech). */
interface TurnHeard { text: string; noisyLine?: boolean; speech: boolean }

/**
 * Recognises one turn's audio: '' when it holds no speech (at once, without the recogniser) or nothing in it fits the
 * grammar (rejected). A cold recogniser loads first, outside the deadline that `work` runs under.
 */
async function hearTurn(pcm: Int16Array, sampleRateHz: number, hint: ListenHint | undefined,
  underDeadline: (work: (signal: AbortSignal) => Promise<TurnHeard>) => Promise<TurnHeard>): Promise<TurnHeard> {
  const speech = trimToSpeech(pcm, sampleRateHz).slice(); // a dedicated buffer, transferred
  if (speech.length === 0) return { text: '', speech: false };
  await warmEars();
  return underDeadline(async (signal) => {
    const r = await runSpeech({ kind: 'hear', pcm: speech.buffer, sampleRateHz, hint }, signal, [speech.buffer]);
    return { text: r.text, noisyLine: r.noisyLine, speech: true };
  });
}

/** audio kept before the detector's speech start (its onset confirmation, soft first sounds) */
const PRE_ROLL_MS = 300;
/**
 * live audio goes to the ears' thread in pieces of this length (a task per piece): at the end of a turn the last
 * piece is what remains to decode, so its length sets the wait for the final text (bench/README.md)
 */
export const FEED_MS = 100;
let streams = 0;
const stats = { live: 0, whole: 0 };
/** How many turns were answered from a live decoding, and how many recognised whole (tests, benches). */
export const earsStats = (): Readonly<typeof stats> => ({ ...stats });

interface LiveTurn {
  id: string;
  /** resolves false once any step found the turn not live on the thread */
  ok: Promise<boolean>;
  pending: Int16Array[];
  pendingSamples: number;
  /** samples sent or pending since the turn's start */
  samples: number;
  hintKey: string;
  /** index in the stream's chunks where the turn's audio starts (for a restart with another hint) */
  from: number;
}

export class OfflineSttStream implements SttStream {
  readonly #listeners: Array<(r: TranscriptResult) => void> = [];
  readonly #id = `s${++streams}`;
  #turns = 0;
  #live: LiveTurn | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #chunks: Int16Array[] = [];
  #chunkAt: number[] = [];
  #samples = 0;
  #startMs = -1;
  #endMs = 0;
  #hint: ListenHint | undefined;
  /** the last turn's line was noisy: the next live turn's noise is suppressed by RNNoise (a line stays as it is) */
  #noisyLine = false;
  #closed = false;

  constructor(private readonly sampleRateHz: number) {}

  write(pcm: Int16Array, atMs: number): void {
    if (this.#closed) return;
    if (this.#startMs < 0) this.#startMs = atMs;
    this.#endMs = atMs + (pcm.length * 1000) / this.sampleRateHz;
    const copy = pcm.slice();
    this.#chunks.push(copy);
    this.#chunkAt.push(atMs);
    this.#samples += pcm.length;
    // keep the latest MAX_TURN_SECONDS: a turn never runs longer (the detector ends it), older audio is not speech of it
    while (this.#samples - this.#chunks[0].length >= MAX_TURN_SECONDS * this.sampleRateHz) {
      this.#samples -= this.#chunks.shift()!.length;
      this.#chunkAt.shift();
      if (this.#live) this.#live.from = Math.max(0, this.#live.from - 1);
    }
    const live = this.#live;
    if (!live) return;
    live.pending.push(copy);
    live.pendingSamples += copy.length;
    live.samples += copy.length;
    // a turn live this long began on something the detector took for speech: the whole-turn path keeps the latest audio
    if (live.samples > MAX_TURN_SECONDS * this.sampleRateHz) { this.#drop(live); return; }
    if (live.pendingSamples >= (FEED_MS * this.sampleRateHz) / 1000) this.#send(live, 'feed');
  }

  expect(hint: ListenHint): void {
    this.#hint = hint;
    // a turn that started before the question was asked is heard against the new grammar, from its start
    if (this.#live && this.#live.hintKey !== JSON.stringify(hint)) this.#goLive(this.#live.from);
  }

  /** The detector heard speech start at `atMs`: the turn is decoded from then on (with PRE_ROLL_MS before it). */
  speechStarted(atMs: number): void {
    if (this.#closed || this.#live || this.sampleRateHz !== EARS_RATE_HZ) return;
    let from = this.#chunkAt.length;
    while (from > 0 && this.#chunkAt[from - 1] + 20 > atMs - PRE_ROLL_MS) from--;
    this.#goLive(from);
  }

  #goLive(from: number): void {
    if (this.#live) this.#drop(this.#live);
    const pending = this.#chunks.slice(from);
    const live: LiveTurn = { id: `${this.#id}t${++this.#turns}`, ok: Promise.resolve(true), pending, from,
      pendingSamples: 0, samples: 0, hintKey: JSON.stringify(this.#hint ?? null) };
    live.pendingSamples = live.samples = pending.reduce((a, c) => a + c.length, 0);
    this.#live = live;
    this.#send(live, 'start');
  }

  /**
   * Sends the turn's pending audio as one step, after the turn's earlier steps are done: the ears' thread interleaves
   * tasks while one awaits (a decoder loading), so order is kept here.
   */
  #send(live: LiveTurn, op: 'start' | 'feed'): void {
    const pcm = concatPcm(live.pending.length ? live.pending : [new Int16Array(0)]).slice();
    live.pending = [];
    live.pendingSamples = 0;
    const start = op === 'start' ? { noisyLine: this.#noisyLine, ...(this.#hint ? { hint: this.#hint } : {}) } : {};
    const before = live.ok;
    live.ok = this.#step(async () => (await before) && runSpeech({ kind: 'listen', op, id: live.id, pcm: pcm.buffer, ...start },
      undefined, [pcm.buffer]).then((r) => r.live, () => false));
  }

  /** Runs `work` after every step this stream sent before (of any of its turns: a drop frees a decoder before the next start). */
  #step<T>(work: () => Promise<T>): Promise<T> {
    const done = this.#tail.then(work);
    this.#tail = done.catch(() => undefined);
    return done;
  }

  #drop(live: LiveTurn): void {
    if (this.#live === live) this.#live = undefined;
    void this.#step(() => runSpeech({ kind: 'listen', op: 'drop', id: live.id, pcm: new ArrayBuffer(0) })).catch(() => {});
  }

  /**
   * The live turn's text; undefined when it was not live to the end or heard nothing (the whole turn is then
   * recognised); `leftOut` when its reading left speech out (the whole turn is then heard with several answers).
   */
  async #endLive(live: LiveTurn, signal: AbortSignal): Promise<{ text?: string; leftOut?: boolean } | undefined> {
    this.#live = undefined;
    const pcm = concatPcm(live.pending.length ? live.pending : [new Int16Array(0)]).slice();
    try {
      if (!await live.ok) return undefined;
      const r = await this.#step(() => runSpeech({ kind: 'listen', op: 'end', id: live.id, pcm: pcm.buffer }, signal, [pcm.buffer]));
      // a rejected live turn is heard whole too: short words ("yes", "who is this") decode worse live, where the
      // decoder's mean normalisation has had little speech to settle on, and a short turn is quick to redo
      if (!r.live) return undefined;
      if (r.heard) this.#noisyLine = r.heard.noisyLine;
      return r.heard?.text ? { text: r.heard.text } : r.heard?.leftOut ? { leftOut: true } : undefined;
    } catch (err) {
      this.#drop(live); // an end dropped from the queue (deadline, abort) leaves the decoder held: give it back
      throw err;
    }
  }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
    const pcm = concatPcm(this.#chunks.length ? this.#chunks : [new Int16Array(0)]);
    const startMs = Math.max(0, this.#startMs), endMs = this.#endMs;
    const live = this.#live;
    this.#live = undefined;
    this.discard();
    const heardLive = live ? await withDeadline('stt', opts, (signal) => this.#endLive(live, signal)) : undefined;
    stats[heardLive?.text === undefined ? 'whole' : 'live']++;
    // a live reading that left speech out was asked one field and heard more: the whole turn goes to several answers
    const hint = heardLive?.leftOut ? severalAnswers(this.#hint) : this.#hint;
    let text = heardLive?.text, unheard = false;
    if (text === undefined) {
      const whole = await hearTurn(pcm, this.sampleRateHz, hint, (work) => withDeadline('stt', opts, work));
      if (whole.noisyLine !== undefined) this.#noisyLine = whole.noisyLine;
      text = whole.text;
      unheard = whole.speech && !text;
    }
    const result: TranscriptResult = { text, final: true, startMs, endMs, confidence: text ? 1 : 0, ...(unheard ? { unheard } : {}) };
    for (const l of this.#listeners) l(result);
    return result;
  }

  /** Forgets the audio written since the last finalize (another reader transcribed that turn). */
  discard(): void {
    if (this.#live) this.#drop(this.#live);
    this.#chunks = []; this.#chunkAt = []; this.#samples = 0; this.#startMs = -1;
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }
  close(): void {
    if (this.#live) this.#drop(this.#live);
    this.#closed = true; this.#listeners.length = 0; this.#chunks = []; this.#chunkAt = [];
  }
}

export class OfflineStt implements SpeechToTextAdapter {
  open(opts: { callId: string; language: string; sampleRateHz: number }): OfflineSttStream {
    void warmEars().catch(() => {}); // a call's first turn comes seconds later: the recogniser loads meanwhile
    return new OfflineSttStream(opts.sampleRateHz);
  }

  async transcribe(pcm: Int16Array, opts: { language: string; sampleRateHz: number; hint?: ListenHint } & AdapterCallOptions): Promise<TranscriptResult> {
    const { text, speech } = await hearTurn(pcm, opts.sampleRateHz, opts.hint, (work) => withDeadline('stt', opts, work));
    return { text, final: true, startMs: 0, endMs: Math.round((pcm.length * 1000) / opts.sampleRateHz), confidence: text ? 1 : 0,
      ...(speech && !text ? { unheard: true } : {}) };
  }
}

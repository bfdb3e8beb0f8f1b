/**
 * The offline ears as a speech-to-text adapter: a grammar recogniser on the speech pool's threads (never the event
 * loop). A call's stream keeps the caller audio written since the last finalize (at most MAX_TURN_SECONDS). Once the
 * session's detector says speech started, the turn is decoded live (live.ts): its audio goes to the ears' thread as
 * it comes, so the final text is ready soon after the end of turn. A turn that cannot be live (no decoder free, a
 * rate other than the model's, a lost thread) is recognised whole, cut to its speech, when the session finalizes it.
 * Once the detector says the speech stopped, the quiet after it (but SPEECH_MARGIN_MS) is held back: it carries no
 * words. After SETTLE_AFTER_MS of it the turn is settled: its result (or the whole hearing of a turn whose reading
 * left speech out) is worked out while the detector still waits for the end of turn (800 ms at the default timeout).
 * If the caller speaks again within the turn, the settled result is dropped and the turn is decoded again from its
 * start, pause and all. A turn's noise goes through the Wiener filter, or RNNoise once its line is found noisy (by the
 * call's turn before, or by the turn itself once it has a second of audio: then it is decoded again from its start).
 * `expect(hint)` steers the turn's grammar. Results are final only: a grammar recogniser has no useful partials.
 */
import { withDeadline } from '../../adapters/deadline.js';
import { AdapterError, type AdapterCallOptions, type ListenHint, type SpeechToTextAdapter, type SttStream, type TranscriptResult } from '../../adapters/types.js';
import { concatPcm } from '../../audio/index.js';
import { runSpeech, warmEars } from '../pool.js';
import { isOneAnswer } from './grammar.js';
import { EARS_RATE_HZ, isNoisyLine, MAX_TURN_SECONDS, severalAnswers } from './recogniser.js';
import { FramePowers } from './stand_out.js';
import { SPEECH_MARGIN_MS, trimToSpeech } from './trim.js';

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
const samplesIn = (chunks: Int16Array[]) => chunks.reduce((a, c) => a + c.length, 0);
/**
 * quiet after the end of speech before a turn is settled: longer than most pauses inside a sentence (which would
 * have the turn decoded again), well before the end-of-turn wait is over
 */
export const SETTLE_AFTER_MS = 400;
/**
 * a turn's line is judged noisy once it has fed this much audio: read off less, its speech level is often only its
 * first soft sounds, and clean lines look noisy (bench/README.md)
 */
const LINE_CHECK_FRAMES = 100;
/** the line's audio before a turn that gives its noise floor (a turn of continuous speech has few quiet frames) */
const LINE_QUIET_MS = 1000;
const stats = { live: 0, whole: 0, heldQuietMs: 0, settled: 0, unsettled: 0, noisyRestarts: 0 };
/**
 * How many turns were answered from a live decoding, how many recognised whole, how much quiet after live turns'
 * speech was never decoded, how many turns were settled before their end, how many of those the caller went on
 * speaking in, and how many live turns were decoded again through RNNoise once their line turned out noisy (tests,
 * benches).
 */
export const earsStats = (): Readonly<typeof stats> => ({ ...stats });

interface LiveTurn {
  id: string;
  /** resolves false once any step found the turn not live on the thread */
  ok: Promise<boolean>;
  pending: Int16Array[];
  pendingSamples: number;
  /** the quiet after the speech stopped, held back from the decoder until the caller speaks again */
  held: Int16Array[];
  /** samples sent or pending since the turn's start */
  samples: number;
  hintKey: string;
  /** index in the stream's chunks where the turn's audio starts (for a restart with another hint) */
  from: number;
  /** the fed audio's 10 ms frame powers while the turn goes through the Wiener filter (a line not known noisy) */
  powers?: FramePowers;
  /** the frame powers of the line's audio before the turn (LINE_QUIET_MS) */
  quietBefore: number[];
}

/** A turn's result as its stream hands it on, and whether the live decoding gave it. */
interface Concluded { text: string; unheard: boolean; live: boolean }

/** A turn settled in the quiet after its speech, its result worked out ahead of the end of turn. */
interface Settled { from: number; hintKey: string; result: Promise<Concluded> }

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
  /** media time from which the audio is quiet after the turn's speech (held back); undefined while speech goes on */
  #quietFrom: number | undefined;
  /** media time at which the quiet settles the turn */
  #settleAt: number | undefined;
  #settled: Settled | undefined;
  /** quiet of the current turn never sent to the decoder */
  #quietSamples = 0;
  /** the line was found noisy (by the last turn, or the current one): live turns' noise is suppressed by RNNoise */
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
      if (this.#settled) this.#settled.from = Math.max(0, this.#settled.from - 1);
    }
    const live = this.#live;
    if (!live) {
      if (this.#settled) this.#quietSamples += copy.length;
      return;
    }
    live.samples += copy.length;
    // a turn live this long began on something the detector took for speech: the whole-turn path keeps the latest audio
    if (live.samples > MAX_TURN_SECONDS * this.sampleRateHz) { this.#drop(live); return; }
    if (this.#quietFrom !== undefined && atMs >= this.#quietFrom) {
      live.held.push(copy);
      this.#quietSamples += copy.length;
      if (live.pending.length) { // the speech's end is decoded now, not at the end of the turn
        this.#send(live, 'feed');
        if (this.#restartIfNoisy(live)) return;
      }
      if (this.#settleAt !== undefined && atMs >= this.#settleAt) this.#settle(live);
      return;
    }
    live.pending.push(copy);
    live.pendingSamples += copy.length;
    if (live.pendingSamples >= (FEED_MS * this.sampleRateHz) / 1000) {
      this.#send(live, 'feed');
      this.#restartIfNoisy(live);
    }
  }

  expect(hint: ListenHint): void {
    this.#hint = hint;
    // a turn that started before the question was asked is heard against the new grammar, from its start
    const turn = this.#live ?? this.#settled;
    if (turn && turn.hintKey !== JSON.stringify(hint)) this.#restart(turn.from);
  }

  /**
   * The detector heard speech start at `atMs`: the turn is decoded from then on (with PRE_ROLL_MS before it); in a
   * live turn, speech again after a pause: the pause held back is decoded, and what follows.
   */
  speechStarted(atMs: number): void {
    this.#quietFrom = this.#settleAt = undefined;
    this.#quietSamples = 0;
    if (this.#settled) { this.#restart(this.#settled.from); return; }
    const live = this.#live;
    if (live) {
      live.pending.push(...live.held);
      live.pendingSamples += samplesIn(live.held);
      live.held = [];
      if (live.pendingSamples >= (FEED_MS * this.sampleRateHz) / 1000) this.#send(live, 'feed');
      return;
    }
    if (this.#closed || this.sampleRateHz !== EARS_RATE_HZ) return;
    let from = this.#chunkAt.length;
    while (from > 0 && this.#chunkAt[from - 1] + 20 > atMs - PRE_ROLL_MS) from--;
    this.#goLive(from);
  }

  /** The detector heard the speech stop (ending at `speechEndMs`): the quiet after it is held back from the decoder. */
  speechStopped(_atMs: number, speechEndMs: number): void {
    if (!this.#live) return;
    this.#quietFrom = speechEndMs + SPEECH_MARGIN_MS;
    this.#settleAt = speechEndMs + SETTLE_AFTER_MS;
  }

  /** The turn is decoded again from chunk `from` (its start): the caller spoke after it settled, or another question came. */
  #restart(from: number): void {
    if (this.#settled) stats.unsettled++;
    this.#settled = undefined;
    this.#goLive(from);
  }

  /**
   * A turn going through the Wiener filter whose line turns out noisy is decoded again from its start, through RNNoise,
   * while the caller speaks (else it would be heard whole once it ended): true when it was.
   */
  #restartIfNoisy(live: LiveTurn): boolean {
    const powers = live.powers?.powers;
    if (!powers || powers.length < LINE_CHECK_FRAMES || !isNoisyLine(powers, live.quietBefore)) return false;
    stats.noisyRestarts++;
    this.#noisyLine = true;
    this.#restart(live.from);
    return true;
  }

  /** Works out the turn's result now, from the audio so far: the rest of the turn is the quiet that ends it. */
  #settle(live: LiveTurn): void {
    stats.settled++;
    this.#settleAt = undefined;
    this.#live = undefined;
    const result = this.#conclude(live, this.#chunks.slice(), this.#hint, {}); // the audio so far: later writes are the quiet
    result.catch(() => {}); // awaited by finalize, unless the caller goes on speaking
    this.#settled = { from: live.from, hintKey: live.hintKey, result };
  }

  #goLive(from: number): void {
    if (this.#live) this.#drop(this.#live);
    const quietAt = this.#chunkAt.findIndex((at, i) => i >= from && this.#quietFrom !== undefined && at >= this.#quietFrom);
    const to = quietAt < 0 ? this.#chunks.length : quietAt;
    const pending = this.#chunks.slice(from, to);
    const quiet = this.#lineBefore(from);
    const quietPowers = new FramePowers();
    quietPowers.push(quiet);
    const live: LiveTurn = { id: `${this.#id}t${++this.#turns}`, ok: Promise.resolve(true), pending, from,
      pendingSamples: 0, samples: 0, held: this.#chunks.slice(to), hintKey: JSON.stringify(this.#hint ?? null),
      quietBefore: quietPowers.powers, ...(this.#noisyLine ? {} : { powers: new FramePowers() }) };
    live.pendingSamples = samplesIn(pending);
    live.samples = live.pendingSamples + samplesIn(live.held);
    this.#live = live;
    this.#send(live, 'start', quiet);
  }

  /** The line's audio in the LINE_QUIET_MS before chunk `from`, a copy to transfer. */
  #lineBefore(from: number): Int16Array {
    let first = from;
    while (first > 0 && this.#chunkAt[first - 1] >= this.#chunkAt[from] - LINE_QUIET_MS) first--;
    return concatPcm(first < from ? this.#chunks.slice(first, from) : [new Int16Array(0)]).slice();
  }

  /**
   * Sends the turn's pending audio as one step, after the turn's earlier steps are done: the ears' thread interleaves
   * tasks while one awaits (a decoder loading), so order is kept here. A start carries the line's quiet before the turn.
   */
  #send(live: LiveTurn, op: 'start' | 'feed', quietBefore?: Int16Array): void {
    const pcm = concatPcm(live.pending.length ? live.pending : [new Int16Array(0)]).slice();
    live.pending = [];
    live.pendingSamples = 0;
    live.powers?.push(pcm);
    const quiet = quietBefore?.buffer as ArrayBuffer | undefined;
    const start = op === 'start' ? { noisyLine: this.#noisyLine, ...(this.#hint ? { hint: this.#hint } : {}), ...(quiet ? { quietBefore: quiet } : {}) } : {};
    const before = live.ok;
    live.ok = this.#step(async () => (await before) && runSpeech({ kind: 'listen', op, id: live.id, pcm: pcm.buffer, ...start },
      undefined, quiet ? [pcm.buffer, quiet] : [pcm.buffer]).then((r) => r.live, () => false));
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
   * The live turn's text ('' when rejected); undefined when it was not live to the end or its line asks for the whole
   * turn (the whole turn is then recognised); `leftOut` when its reading left speech out (the whole turn is then heard
   * with several answers).
   */
  async #endLive(live: LiveTurn, signal: AbortSignal): Promise<{ text?: string; leftOut?: boolean } | undefined> {
    this.#live = undefined;
    const pcm = concatPcm(live.pending.length ? live.pending : [new Int16Array(0)]).slice();
    try {
      if (!await live.ok) return undefined;
      const r = await this.#step(() => runSpeech({ kind: 'listen', op: 'end', id: live.id, pcm: pcm.buffer }, signal, [pcm.buffer]));
      if (!r.live || !r.heard) return undefined;
      this.#noisyLine = r.heard.noisyLine;
      // a rejection is final: heard again whole, rejected turns gave about as many wrong values as right ones (bench/README.md)
      return r.heard.hearWhole ? undefined : r.heard.leftOut ? { leftOut: true } : { text: r.heard.text };
    } catch (err) {
      this.#drop(live); // an end dropped from the queue (deadline, abort) leaves the decoder held: give it back
      throw err;
    }
  }

  async finalize(opts?: AdapterCallOptions): Promise<TranscriptResult> {
    if (this.#closed) throw new AdapterError('stt', 'canceled', 'stream closed');
    const chunks = this.#chunks;
    const startMs = Math.max(0, this.#startMs), endMs = this.#endMs;
    const live = this.#live, settled = this.#settled;
    stats.heldQuietMs += (this.#quietSamples * 1000) / this.sampleRateHz;
    this.#live = this.#settled = undefined;
    this.discard();
    const { text, unheard, live: wasLive } = settled ? await withDeadline('stt', opts, () => settled.result) : await this.#conclude(live, chunks, this.#hint, opts);
    stats[wasLive ? 'live' : 'whole']++;
    const result: TranscriptResult = { text, final: true, startMs, endMs, confidence: text ? 1 : 0, ...(unheard ? { unheard } : {}) };
    for (const l of this.#listeners) l(result);
    return result;
  }

  /** A turn's text: from its live decoding, else (not live, left to the whole turn) from its whole audio `chunks`. */
  async #conclude(live: LiveTurn | undefined, chunks: Int16Array[], hint: ListenHint | undefined, opts?: AdapterCallOptions): Promise<Concluded> {
    const heardLive = live ? await withDeadline('stt', opts, (signal) => this.#endLive(live, signal)) : undefined;
    const pcm = () => concatPcm(chunks.length ? chunks : [new Int16Array(0)]);
    // a live reading that left speech out of a turn asked one field goes whole to several answers; else it is final
    if (heardLive && (heardLive.text !== undefined || !isOneAnswer(hint))) {
      const text = heardLive.text ?? '';
      // a rejected turn is unheard when it held speech (the whole-turn path's measure), so the agent asks again
      return { text, unheard: !text && trimToSpeech(pcm(), this.sampleRateHz).length > 0, live: true };
    }
    const whole = await hearTurn(pcm(), this.sampleRateHz, heardLive?.leftOut ? severalAnswers(hint) : hint, (work) => withDeadline('stt', opts, work));
    if (whole.noisyLine !== undefined) this.#noisyLine = whole.noisyLine;
    return { text: whole.text, unheard: whole.speech && !whole.text, live: false };
  }

  /** Forgets the audio written since the last finalize (another reader transcribed that turn). */
  discard(): void {
    if (this.#live) this.#drop(this.#live);
    this.#settled = this.#quietFrom = this.#settleAt = undefined;
    this.#chunks = []; this.#chunkAt = []; this.#samples = 0; this.#startMs = -1; this.#quietSamples = 0;
  }

  onResult(listener: (r: TranscriptResult) => void): void { this.#listeners.push(listener); }
  close(): void {
    if (this.#live) this.#drop(this.#live);
    this.#settled = undefined;
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

/**
 * The operator's turns on a call's audio: a loudness gate cuts the operator's microphone into turns (speech, then
 * END_SILENCE_MS of quiet), each transcribed by the configured speech-to-text stream. A turn the recogniser makes
 * nothing of (the embedded default's grammar recogniser rejects open speech) is still a turn: reported with empty
 * text and its place in the recording, never with made-up words.
 */
import { FRAME_MS } from '../audio/index.js';
import type { SttStream } from '../adapters/types.js';
import { finalizeNow } from '../adapters/finalize_now.js';

/** frame RMS above which the operator is taken to speak (about -36 dBFS: a voice near the microphone) */
export const SPEECH_RMS = 500;
/** quiet that ends a turn, ms */
export const END_SILENCE_MS = 700;
/** a turn shorter than this (a click, a cough) is not one, ms */
export const MIN_TURN_MS = 200;

/** quiet frames after which what the recogniser holds is dropped (3 s) */
const QUIET_DROP_FRAMES = 150;

export interface OperatorTurn {
  /** what the recogniser heard ('' when it made nothing of it) */
  text: string;
  /** where the turn is in the call's recording (channel 2), and how long it lasts, ms */
  offsetMs: number; durationMs: number;
}

export const frameRms = (pcm: Int16Array): number => {
  let sum = 0;
  for (const v of pcm) sum += v * v;
  return Math.sqrt(sum / Math.max(1, pcm.length));
};

export class OperatorSpeech {
  #turn?: { offsetMs: number; frames: number; loud: number; quiet: number };
  #media = 0;
  #chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly stt: SttStream, private readonly o: { timeoutMs: number; onTurn(t: OperatorTurn): void; onError(err: unknown): void }) {}

  /** One 20 ms frame of the operator's voice, placed at `offsetMs` of the recording. */
  push(pcm: Int16Array, offsetMs: number): void {
    this.stt.write(pcm, this.#media);
    this.#media += FRAME_MS;
    const loud = frameRms(pcm) >= SPEECH_RMS;
    const t = this.#turn;
    if (!t) {
      if (loud) this.#turn = { offsetMs, frames: 1, loud: 1, quiet: 0 };
      // minutes of quiet before a turn are not the recogniser's work: dropped every few seconds
      else if (++this.#quietFrames % QUIET_DROP_FRAMES === 0) this.#discard();
      return;
    }
    t.frames++;
    if (loud) { t.loud++; t.quiet = 0; } else t.quiet++;
    if (t.quiet * FRAME_MS >= END_SILENCE_MS) this.#end();
  }

  /** The operator left: a turn under way ends now. */
  flush(): Promise<unknown> { if (this.#turn) this.#end(); return this.#chain; }

  #end(): void {
    const t = this.#turn!;
    this.#turn = undefined;
    const durationMs = (t.frames - t.quiet) * FRAME_MS;
    if (t.loud * FRAME_MS < MIN_TURN_MS) { this.#discard(); return; }
    const heard = finalizeNow(this.stt, this.o.timeoutMs); // reported in turn order, after the turns before
    this.#chain = this.#chain.then(heard)
      .then((r) => this.o.onTurn({ text: r.text.trim(), offsetMs: t.offsetMs, durationMs }),
        (err) => { this.o.onError(err); this.o.onTurn({ text: '', offsetMs: t.offsetMs, durationMs }); });
  }

  #quietFrames = 0;
  /** what the recogniser holds is not a turn (quiet, a click): finalized and its result ignored */
  #discard(): void {
    this.#chain = this.#chain.then(finalizeNow(this.stt, this.o.timeoutMs)).catch(() => undefined);
  }
}

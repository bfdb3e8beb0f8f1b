/**
 * Live turns on the ears' thread: a caller turn decoded while the caller speaks, so that at the end of the turn only
 * its last audio and the search's close remain (the whole-turn path decodes everything then). Each live turn holds
 * a decoder of its own from a small pool (decoders keep their last grammar, so a turn asked the same field as an
 * earlier one starts at once); when the pool is in use the turn is not live and its stream recognises it whole.
 */
import type { Decoder } from 'soundswallower';
import type { ListenHint } from '../../adapters/types.js';
import { NoiseSuppressor } from './denoise.js';
import { LineNoiseSuppressor } from './rnnoise.js';
import { FramePowers } from './stand_out.js';
import { EARS_RATE_HZ, grammarFor, heardFrom, isNoisyLine, MAX_TURN_SECONDS, newDecoder, setGrammar, toFloat, type Heard } from './recogniser.js';

/** decoders for live turns per thread, 25-50 MB each (bench/README.md); a turn beyond them is recognised whole */
let maxDecoders = 4;
const idle: Array<{ decoder: Decoder; key: string }> = [];
let made = 0;
interface LiveTurn { decoder: Decoder; key: string; samples: number; noise: NoiseSuppressor | LineNoiseSuppressor; powers: FramePowers; quietBefore: number[] }
const turns = new Map<string, LiveTurn>();

/**
 * A live turn's result: what was heard, and whether its line turned out noisy (the stream's next turn starts so);
 * `hearWhole`: the live decoding did not suit the line, the turn is to be recognised whole.
 */
export type LiveHeard = Heard & { noisyLine: boolean; hearWhole?: boolean };

/**
 * Starts a live turn with its first audio (8 kHz), against the hint's grammar; false when no decoder is free (the
 * stream then recognises the turn whole). A turn of the same id still live is dropped first. `noisyLine`: the
 * call's last turn was on a noisy line, so this one's noise is suppressed by RNNoise (as a whole turn's would be).
 * `quietBefore`: the line's audio before the turn, its floor in the line's noise (`isNoisyLine`).
 */
export async function startLive(id: string, hint: ListenHint | undefined, pcm: Int16Array, noisyLine = false,
  quietBefore = new Int16Array(0)): Promise<boolean> {
  dropLive(id);
  const held = await takeDecoder(hint);
  if (!held) return false;
  held.decoder.start();
  const before = new FramePowers();
  before.push(quietBefore);
  turns.set(id, { ...held, samples: 0, noise: noisyLine ? new LineNoiseSuppressor(EARS_RATE_HZ) : new NoiseSuppressor(),
    powers: new FramePowers(), quietBefore: before.powers });
  feedLive(id, pcm);
  return true;
}

/** More of a live turn's audio; false when the turn is not live here (never started, dropped, or a new thread). */
export function feedLive(id: string, pcm: Int16Array): boolean {
  const t = turns.get(id);
  if (!t) return false;
  const room = MAX_TURN_SECONDS * EARS_RATE_HZ - t.samples; // the whole-turn path's cap too
  if (room > 0 && pcm.length > 0) {
    t.powers.push(pcm.subarray(0, room));
    decode(t, t.noise.process(pcm.subarray(0, room)));
  }
  t.samples += Math.min(room, pcm.length);
  return true;
}

const decode = (t: { decoder: Decoder }, clean: Int16Array) => { if (clean.length) t.decoder.process_audio(toFloat(clean), false, false); };

/**
 * Ends a live turn with its last audio: what was heard; undefined when the turn is not live here. A turn whose line
 * turned out noisy but went through the Wiener filter is left to be heard whole (by RNNoise).
 */
export function endLive(id: string, pcm: Int16Array): LiveHeard | undefined {
  const t = turns.get(id);
  if (!t || !feedLive(id, pcm)) return undefined;
  turns.delete(id);
  try {
    decode(t, t.noise.flush());
    t.decoder.stop();
    const heard = heardFrom(t.decoder, t.powers.powers);
    const noisyLine = isNoisyLine(t.powers.powers, t.quietBefore);
    return noisyLine && t.noise instanceof NoiseSuppressor ? { text: '', path: heard.path, rejected: true, noisyLine, hearWhole: true } : { ...heard, noisyLine };
  } finally {
    release(t);
  }
}

function release(t: LiveTurn): void {
  if (t.noise instanceof LineNoiseSuppressor) t.noise.close();
  idle.push({ decoder: t.decoder, key: t.key });
}

/** Forgets a live turn (discarded, its call ended); its decoder goes back to the pool. */
export function dropLive(id: string): void {
  const t = turns.get(id);
  if (!t) return;
  turns.delete(id);
  try { t.decoder.stop(); } catch { /* a decoder that cannot stop is still reusable after start() */ }
  release(t);
}

/** How many decoders live turns may hold on this thread (tests lower it to reach the whole-turn fallback). */
export function setMaxLiveDecoders(n: number): void { maxDecoders = n; }

export const liveTurns = (): number => turns.size;

async function takeDecoder(hint: ListenHint | undefined): Promise<{ decoder: Decoder; key: string } | undefined> {
  let held = idle.length ? idle.pop() : undefined;
  if (!held && made < maxDecoders) {
    made++;
    held = { decoder: await newDecoder().catch((err) => { made--; throw err; }), key: '' };
  }
  if (!held) return undefined;
  // prefer an idle decoder that already holds this grammar (switching costs 30-110 ms, the open grammar about a second)
  const grammar = grammarFor(held.decoder, hint);
  const same = idle.findIndex((d) => d.key === grammar.key);
  if (held.key !== grammar.key && same >= 0) { idle.push(held); held = idle.splice(same, 1)[0]; }
  held.key = setGrammar(held.decoder, grammar, held.key);
  return held;
}

/**
 * Piscina task: advance many calls' detectors at once. Pure: every call's state comes in packed with the task
 * and goes back packed in the result; nothing per call is kept in this module (piscina reuses it per thread).
 * The batch is a handful of typed arrays (transferred, not cloned) so the hop costs the same for 1 or 5,000 calls.
 * One failing call does not fail the batch: its error is returned and its state slot is left untouched.
 */
import { analyzePcm, type AnalyzeOptions, type AnalyzeResult } from '../src/audio/analyze.js';
import { resolveBargeIn, stepCallAudio } from '../src/audio/call_audio.js';
import { BARGE_IN_VERDICTS, type AudioEvent, type BargeInVerdict } from '../src/audio/events.js';
import { mulawDecode } from '../src/audio/g711.js';
import { PACKED_STATE_LENGTH, packState, unpackState, unpackStateInto } from '../src/audio/state_codec.js';
import type { CallAudioState } from '../src/audio/call_audio.js';
import { move, transferableSymbol, valueSymbol } from 'piscina';

/** Op kinds in CallBatch.ops (4 int32 per op: kind, offset, length, agentSpeaking | text index). */
export const OP_MULAW = 0;
export const OP_PCM = 1;
export const OP_RESOLVE = 2;
export const OP_WORDS = 4;

export interface CallBatch {
  kind: 'batch';
  /** Calls in the batch; call i's state is states[i*PACKED_STATE_LENGTH ...]. */
  calls: number;
  states: Float64Array;
  /** Per call: first op index and op count (2 int32 per call). */
  callOps: Int32Array;
  ops: Int32Array;
  /** All audio bytes of the batch (PCM16 ops start at even offsets). */
  audio: Uint8Array;
  /** Transcripts for resolve ops. */
  texts: string[];
}

export interface CallBatchResult {
  kind: 'batch';
  states: Float64Array;
  /** Only non-empty event lists: call index, op index (within the call), events. */
  events: { call: number; op: number; events: AudioEvent[] }[];
  errors: { call: number; message: string }[];
}

export type AudioTask = CallBatch | { kind: 'analyze'; pcm: ArrayBuffer; sampleRateHz: number; options: AnalyzeOptions };
export type AudioTaskResult = CallBatchResult | { kind: 'analyze'; result: AnalyzeResult };

// Scratch reused across calls: overwritten from each call's packed state / audio before use, so no call's
// data survives from one call (or task) to the next.
const scratch = new Int16Array(8000);
let scratchState: CallAudioState | undefined;

function runCall(b: CallBatch, call: number, out: CallBatchResult): void {
  const state = scratchState
    ? unpackStateInto(b.states, call * PACKED_STATE_LENGTH, scratchState)
    : (scratchState = unpackState(b.states, call * PACKED_STATE_LENGTH));
  const first = b.callOps[call * 2], count = b.callOps[call * 2 + 1];
  const found: CallBatchResult['events'] = [];
  for (let k = 0; k < count; k++) {
    const o = (first + k) * OP_WORDS;
    const kind = b.ops[o], offset = b.ops[o + 1], length = b.ops[o + 2], arg = b.ops[o + 3];
    let ev: AudioEvent[];
    if (kind === OP_MULAW) {
      const pcm = length <= scratch.length ? scratch.subarray(0, length) : new Int16Array(length);
      ev = stepCallAudio(state, mulawDecode(b.audio.subarray(offset, offset + length), pcm), arg === 1);
    } else if (kind === OP_PCM) {
      if (((b.audio.byteOffset + offset) & 1) !== 0 || (length & 1) !== 0) throw new RangeError('PCM16 op is not 2-byte aligned');
      ev = stepCallAudio(state, new Int16Array(b.audio.buffer, b.audio.byteOffset + offset, length / 2), arg === 1);
    } else {
      const verdict = b.texts[arg] as BargeInVerdict;
      if (!BARGE_IN_VERDICTS.includes(verdict)) throw new RangeError(`not a barge-in verdict: ${verdict}`);
      ev = resolveBargeIn(state, verdict);
    }
    if (ev.length) found.push({ call, op: k, events: ev });
  }
  packState(state, b.states, call * PACKED_STATE_LENGTH); // only after every op succeeded
  out.events.push(...found);
}

/** Piscina returns the value and transfers (not copies) the listed buffers. */
function transferring(result: CallBatchResult): AudioTaskResult {
  return move({ [transferableSymbol]: [result.states.buffer], [valueSymbol]: result } as never) as unknown as AudioTaskResult;
}

export default function audioStep(task: AudioTask): AudioTaskResult {
  if (task.kind === 'analyze') {
    return { kind: 'analyze', result: analyzePcm(new Int16Array(task.pcm), task.sampleRateHz, task.options) };
  }
  const out: CallBatchResult = { kind: 'batch', states: task.states, events: [], errors: [] };
  for (let c = 0; c < task.calls; c++) {
    try {
      runCall(task, c, out);
    } catch (err) {
      out.errors.push({ call: c, message: err instanceof Error ? err.message : String(err) });
    }
  }
  return transferring(out);
}

/**
 * CallAudioState <-> a fixed-length Float64Array slice, for the worker hop. Structured-cloning ~40 small
 * objects per call per batch cost more than the detection itself (tens of us); a packed array is one memcpy
 * (or a transfer). The object form stays the public API; this layout is private to the pool and its worker.
 */
import type { BargeInPhase, CallAudioState } from './call_audio.js';
import { DEFAULT_TUNING, type DetectorTuning } from './tuning.js';
import { FLOOR_BLOCKS, FLOOR_LOWEST, type VadPhase } from './vad.js';

const TUNING_KEYS = Object.keys(DEFAULT_TUNING) as (keyof DetectorTuning)[];
const PHASES: VadPhase[] = ['quiet', 'starting', 'speaking', 'stopping'];
const BARGE: BargeInPhase[] = ['none', 'pending', 'confirmed'];
const T0 = 5;                       // after version, rate, timeout, sensitivity, maxTurnMs
const S0 = T0 + TUNING_KEYS.length; // call-level fields
const V0 = S0 + 7;                  // vad fields
/** Doubles per packed state. */
export const PACKED_STATE_LENGTH = V0 + 1 + 8 + 1 + FLOOR_BLOCKS + 1 + FLOOR_LOWEST + 7 + 4;

export function packState(s: CallAudioState, a: Float64Array, base = 0): void {
  const st = s.settings;
  a[base] = s.version; a[base + 1] = st.sampleRateHz; a[base + 2] = st.turnDetectionTimeoutMs;
  a[base + 3] = st.interruptionSensitivity; a[base + 4] = st.maxTurnMs ?? NaN;
  for (let i = 0; i < TUNING_KEYS.length; i++) a[base + T0 + i] = s.tuning[TUNING_KEYS[i]];
  let o = base + S0;
  a[o++] = s.frameSamples; a[o++] = s.frames; a[o++] = s.turnOpen ? 1 : 0; a[o++] = s.turnStartMs;
  a[o++] = BARGE.indexOf(s.bargeIn); a[o++] = s.overlapFrames; a[o++] = s.speechStartMs;
  const v = s.vad;
  a[o++] = PHASES.indexOf(v.phase);
  for (let i = 0; i < 8; i++) a[o++] = v.filter[i];
  a[o++] = v.floorDb;
  for (let i = 0; i < FLOOR_BLOCKS; i++) a[o++] = v.floorRing[i];
  a[o++] = v.floorRingPos;
  for (let i = 0; i < FLOOR_LOWEST; i++) a[o++] = v.blockLowest[i];
  a[o++] = v.blockFrames; a[o++] = v.speechLevelDb; a[o++] = v.run; a[o++] = v.onsetFrame;
  a[o++] = v.speechEndFrame; a[o++] = v.lastLevelDb; a[o++] = v.loudFrame;
  const g = v.gate;
  a[o++] = g.bgFrames; a[o++] = g.bgMeanDb; a[o++] = g.bgMeanSqDb; a[o++] = g.bits;
}

function copyOut(a: Float64Array, o: number, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = a[o + i];
  return out;
}

/**
 * Overwrites `target` (a state previously returned by unpackState) in place: the worker reuses one scratch
 * object for every call of a batch instead of allocating ~10 objects per call per batch (GC pauses in the
 * worker were the largest source of tail latency).
 */
export function unpackStateInto(a: Float64Array, base: number, target: CallAudioState): CallAudioState {
  const t = target;
  for (let i = 0; i < TUNING_KEYS.length; i++) t.tuning[TUNING_KEYS[i]] = a[base + T0 + i];
  const st = t.settings;
  st.sampleRateHz = a[base + 1] as 8000 | 16000; st.turnDetectionTimeoutMs = a[base + 2]; st.interruptionSensitivity = a[base + 3];
  const maxTurnMs = a[base + 4];
  if (Number.isNaN(maxTurnMs)) delete st.maxTurnMs; else st.maxTurnMs = maxTurnMs;
  const c = base + S0;
  t.frameSamples = a[c]; t.frames = a[c + 1]; t.turnOpen = a[c + 2] === 1; t.turnStartMs = a[c + 3];
  t.bargeIn = BARGE[a[c + 4]]; t.overlapFrames = a[c + 5]; t.speechStartMs = a[c + 6];
  const v = t.vad;
  let o = base + V0;
  v.phase = PHASES[a[o++]];
  for (let i = 0; i < 8; i++) v.filter[i] = a[o++];
  v.floorDb = a[o++];
  for (let i = 0; i < FLOOR_BLOCKS; i++) v.floorRing[i] = a[o++];
  v.floorRingPos = a[o++];
  for (let i = 0; i < FLOOR_LOWEST; i++) v.blockLowest[i] = a[o++];
  v.blockFrames = a[o]; v.speechLevelDb = a[o + 1]; v.run = a[o + 2]; v.onsetFrame = a[o + 3];
  v.speechEndFrame = a[o + 4]; v.lastLevelDb = a[o + 5]; v.loudFrame = a[o + 6];
  const g = v.gate;
  g.bgFrames = a[o + 7]; g.bgMeanDb = a[o + 8]; g.bgMeanSqDb = a[o + 9]; g.bits = a[o + 10];
  return t;
}

export function unpackState(a: Float64Array, base = 0): CallAudioState {
  const tuning = { ...DEFAULT_TUNING }; // same key order every time: one hidden class
  for (let i = 0; i < TUNING_KEYS.length; i++) tuning[TUNING_KEYS[i]] = a[base + T0 + i];
  const maxTurnMs = a[base + 4];
  let o = base + V0;
  const phase = PHASES[a[o++]];
  const filter = copyOut(a, o, 8); o += 8;
  const floorDb = a[o++];
  const floorRing = copyOut(a, o, FLOOR_BLOCKS); o += FLOOR_BLOCKS;
  const floorRingPos = a[o++];
  const blockLowest = copyOut(a, o, FLOOR_LOWEST); o += FLOOR_LOWEST;
  const c = base + S0;
  return {
    version: 1,
    settings: {
      sampleRateHz: a[base + 1] as 8000 | 16000, turnDetectionTimeoutMs: a[base + 2], interruptionSensitivity: a[base + 3],
      ...(Number.isNaN(maxTurnMs) ? {} : { maxTurnMs }),
    },
    tuning,
    frameSamples: a[c], frames: a[c + 1], turnOpen: a[c + 2] === 1, turnStartMs: a[c + 3],
    bargeIn: BARGE[a[c + 4]], overlapFrames: a[c + 5], speechStartMs: a[c + 6],
    vad: {
      phase, filter, floorDb, floorRing, floorRingPos, blockLowest,
      blockFrames: a[o], speechLevelDb: a[o + 1], run: a[o + 2], onsetFrame: a[o + 3], speechEndFrame: a[o + 4], lastLevelDb: a[o + 5],
      loudFrame: a[o + 6], gate: { bgFrames: a[o + 7], bgMeanDb: a[o + 8], bgMeanSqDb: a[o + 9], bits: a[o + 10] },
    },
  };
}

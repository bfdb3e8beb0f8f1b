/**
 * Speech activity over 20 ms frames: adaptive noise floor + hysteresis + a named-state machine.
 *
 *   quiet --speech--> starting --startMs of speech--> speaking --silence--> stopping --stopMs--> quiet
 *                        |  silence                         ^                  | resumeMs of speech
 *                        v                                  +------------------+
 *                      quiet
 *
 * Pure: `vadStep` mutates only the VadState it is given and returns what changed. Times are frame counts.
 */
import { frameLevels, newFilterMemory, type FilterMemory, type FrameLevels } from './frame_energy.js';
import type { DetectorTuning } from './tuning.js';

export type VadPhase = 'quiet' | 'starting' | 'speaking' | 'stopping';

export interface VadState {
  phase: VadPhase;
  filter: FilterMemory;
  /** Noise floor estimate (dBFS): min over the ring of per-block minima plus the current block. */
  floorDb: number;
  floorRing: number[];
  floorRingPos: number;
  /** The FLOOR_LOWEST lowest frame levels of the current block, ascending. */
  blockLowest: number[];
  blockFrames: number;
  /** Running level of confirmed speech frames (dBFS), -Infinity-like until speech is heard. */
  speechLevelDb: number;
  /** Consecutive speech frames in 'starting' / 'stopping'. */
  run: number;
  /** First frame of the current onset run. */
  onsetFrame: number;
  /** Frame index just after the last speech frame (the speech end estimate). */
  speechEndFrame: number;
  /** Level of the last frame, for diagnostics. */
  lastLevelDb: number;
}

export type VadChange = 'none' | 'started' | 'stopped';

export const FLOOR_BLOCKS = 8;
export const FLOOR_LOWEST = 3;
/** Scratch output of frameLevels (not state: overwritten on every frame). */
const levels: FrameLevels = { robustDb: 0, meanDb: 0 };

export function createVadState(t: DetectorTuning): VadState {
  return {
    phase: 'quiet', filter: newFilterMemory(),
    floorDb: t.initialFloorDb, floorRing: new Array<number>(FLOOR_BLOCKS).fill(t.initialFloorDb), floorRingPos: 0,
    blockLowest: new Array<number>(FLOOR_LOWEST).fill(Infinity), blockFrames: 0,
    speechLevelDb: -200, run: 0, onsetFrame: 0, speechEndFrame: 0, lastLevelDb: -120,
  };
}

/**
 * Minimum statistics over FLOOR_BLOCKS blocks: each block contributes the mean power of its FLOOR_LOWEST
 * quietest frames (averaging a few frames keeps isolated near-silent frames of sparse noise from dragging the
 * floor down), and the floor is the smallest block value in the window, so speech (which always has some
 * quiet frames within a couple of seconds) does not lift it.
 */
function trackFloor(s: VadState, db: number, framesPerBlock: number): void {
  const low = s.blockLowest;
  if (db < low[FLOOR_LOWEST - 1]) {
    let i = FLOOR_LOWEST - 1;
    for (; i > 0 && low[i - 1] > db; i--) low[i] = low[i - 1];
    low[i] = db;
  }
  if (++s.blockFrames >= framesPerBlock) {
    let p = 0;
    for (const v of low) p += 10 ** (v / 10);
    s.floorRing[s.floorRingPos] = 10 * Math.log10(p / FLOOR_LOWEST);
    s.floorRingPos = (s.floorRingPos + 1) % FLOOR_BLOCKS;
    low.fill(Infinity);
    s.blockFrames = 0;
  }
  let m = Infinity;
  for (const v of s.floorRing) if (v < m) m = v;
  s.floorDb = m;
}

/** Processes one frame (index `f`, `frameMs` long); `stopMs` is the effective hangover before 'stopped'. */
export function vadStep(
  s: VadState, frame: Int16Array, sampleRateHz: number, f: number, t: DetectorTuning, frameMs: number, stopMs: number,
  external?: boolean,
): VadChange {
  const { robustDb: db, meanDb } = frameLevels(frame, sampleRateHz, s.filter, levels);
  s.lastLevelDb = db;
  trackFloor(s, meanDb, Math.max(1, Math.round(t.floorWindowMs / FLOOR_BLOCKS / frameMs)));
  const enter = Math.max(s.floorDb + t.enterMarginDb, s.speechLevelDb - t.belowSpeechLevelDb, t.absoluteMinDb);
  // Hysteresis only while speaking: resuming from 'stopping' needs a real onset (enter threshold), so
  // background bursts in a pause neither extend the speech nor restart it.
  const speechy = external ?? db > (s.phase === 'speaking' ? enter - t.hysteresisDb : enter);
  const startFrames = Math.max(1, Math.round(t.startMs / frameMs));
  const resumeFrames = Math.max(1, Math.round(t.resumeMs / frameMs));
  switch (s.phase) {
    case 'quiet':
      if (speechy) { s.phase = 'starting'; s.run = 1; s.onsetFrame = f; }
      break;
    case 'starting':
      if (!speechy) { s.phase = 'quiet'; s.run = 0; break; }
      if (++s.run >= startFrames) { s.phase = 'speaking'; s.speechEndFrame = f + 1; s.run = 0; return 'started'; }
      break;
    case 'speaking':
      if (speechy) { s.speechEndFrame = f + 1; break; }
      s.phase = 'stopping'; s.run = 0;
      break;
    case 'stopping':
      if (speechy) {
        if (++s.run >= resumeFrames) { s.phase = 'speaking'; s.speechEndFrame = f + 1; s.run = 0; }
        break;
      }
      s.run = 0;
      if (silenceMs(s, f, frameMs) >= stopMs) { s.phase = 'quiet'; return 'stopped'; }
      break;
  }
  if (s.phase === 'quiet' && s.speechLevelDb > -150) {
    // Forget the caller's level slowly while nobody speaks, so a caller who got much quieter (or a loud
    // first utterance) cannot lock the relative threshold above their speech for good.
    s.speechLevelDb -= t.speechLevelDecayDbPerS * frameMs / 1000;
  } else if (s.phase === 'speaking' && speechy && external === undefined && db > s.speechLevelDb - 10) {
    // Running level of the caller's louder speech frames (~1 s time constant), for the relative threshold
    // that keeps a quieter background talker from counting as the caller.
    s.speechLevelDb = s.speechLevelDb < -150 ? db : s.speechLevelDb + (db - s.speechLevelDb) * 0.02;
  }
  return 'none';
}

/** Silence (ms) since the last speech frame, as of the end of frame `f`. */
export function silenceMs(s: VadState, f: number, frameMs: number): number {
  return (f + 1 - s.speechEndFrame) * frameMs;
}

/**
 * Speech activity over 20 ms frames: adaptive noise floor + hysteresis + a named-state machine.
 *
 *   quiet --speech--> starting --startMs of speech--> speaking --silence--> stopping --stopMs--> quiet
 *     |                  |  silence                    ^    ^                  | resumeMs of speech,
 *     |                  v                             |    +------------------+ or weak speech going on
 *     |                quiet                           |
 *     +---- mostly weak speech over weakOnsetWindowMs -+
 *
 * "Speech" is a frame above the enter threshold (floor + enterMarginDb, or near the caller's level); "weak
 * speech" (noise_gate.ts) is a frame above what the background itself does, which in heavy stationary noise is
 * where most syllables are. Weak speech keeps speech going, and starts it when it fills most of a window: inside
 * a turn on its own, for a new turn only if that window also holds a frame above the enter threshold.
 *
 * Pure: `vadStep` mutates only the VadState it is given and returns what changed. Times are frame counts.
 */
import { frameLevels, newFilterMemory, type FilterMemory, type FrameLevels } from './frame_energy.js';
import {
  createNoiseGateState, observeBackground, pushWeak, weakBefore, weakContinues, weakOnsetAgo, weakThresholdDb,
  type NoiseGateState,
} from './noise_gate.js';
import type { DetectorTuning } from './tuning.js';

export type VadPhase = 'quiet' | 'starting' | 'speaking' | 'stopping';

export interface VadState {
  phase: VadPhase;
  filter: FilterMemory;
  /** Noise floor estimate (dBFS): min over the ring of per-block minima (the first block's, while it fills). */
  floorDb: number;
  /** Per-block minima; UNMEASURED until a block has been completed (JSON-safe, unlike Infinity). */
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
  /** Index of the last frame above the enter threshold. */
  loudFrame: number;
  /** Level of the last frame, for diagnostics. */
  lastLevelDb: number;
  /** Background statistics and weak-speech flags (heavy stationary noise). */
  gate: NoiseGateState;
}

export type VadChange = 'none' | 'started' | 'stopped';

export const FLOOR_BLOCKS = 8;
export const FLOOR_LOWEST = 3;
/** Marks a floor-ring slot or a block-lowest slot that holds no measurement yet (above any real level). */
export const UNMEASURED = 1000;
/** A frame index long before any call starts (JSON-safe, unlike -Infinity). */
const NEVER = -1e9;
/** Scratch output of frameLevels (not state: overwritten on every frame). */
const levels: FrameLevels = { robustDb: 0, meanDb: 0 };

export function createVadState(t: DetectorTuning): VadState {
  return {
    phase: 'quiet', filter: newFilterMemory(),
    floorDb: t.initialFloorDb, floorRing: new Array<number>(FLOOR_BLOCKS).fill(UNMEASURED), floorRingPos: 0,
    blockLowest: new Array<number>(FLOOR_LOWEST).fill(UNMEASURED), blockFrames: 0,
    speechLevelDb: -200, run: 0, onsetFrame: 0, speechEndFrame: 0, loudFrame: NEVER, lastLevelDb: -120,
    gate: createNoiseGateState(),
  };
}

function lowestMeanDb(low: number[]): number {
  let p = 0;
  for (const v of low) p += 10 ** (v / 10);
  return 10 * Math.log10(p / FLOOR_LOWEST);
}

/**
 * Minimum statistics over FLOOR_BLOCKS blocks: each block contributes the mean power of its FLOOR_LOWEST
 * quietest frames (averaging a few frames keeps isolated near-silent frames of sparse noise from dragging the
 * floor down), and the floor is the smallest block value in the window, so speech (which always has some
 * quiet frames within a couple of seconds) does not lift it.
 * Only measured blocks count, and until the first block is complete, its FLOOR_LOWEST quietest frames so far:
 * a prior floor that stood for the whole first window made any background louder than the prior pass for speech.
 */
function trackFloor(s: VadState, db: number, framesPerBlock: number): boolean {
  const low = s.blockLowest;
  if (db < low[FLOOR_LOWEST - 1]) {
    let i = FLOOR_LOWEST - 1;
    for (; i > 0 && low[i - 1] > db; i--) low[i] = low[i - 1];
    low[i] = db;
  }
  let m = UNMEASURED;
  if (++s.blockFrames >= framesPerBlock) {
    s.floorRing[s.floorRingPos] = lowestMeanDb(low);
    s.floorRingPos = (s.floorRingPos + 1) % FLOOR_BLOCKS;
    low.fill(UNMEASURED);
    s.blockFrames = 0;
  } else if (s.blockFrames >= FLOOR_LOWEST && s.floorRing[0] === UNMEASURED) {
    m = lowestMeanDb(low); // the very first block, before any block was completed
  }
  for (const v of s.floorRing) if (v < m) m = v;
  if (m >= UNMEASURED) return false;
  s.floorDb = m;
  return true;
}

/**
 * Processes one frame (index `f`, `frameMs` long); `stopMs` is the effective hangover before 'stopped';
 * `turnOpen`: the caller's turn has not ended yet (weak speech may then resume speech on its own).
 */
export function vadStep(
  s: VadState, frame: Int16Array, sampleRateHz: number, f: number, t: DetectorTuning, frameMs: number, stopMs: number,
  turnOpen: boolean, external?: boolean,
): VadChange {
  const { robustDb: db, meanDb } = frameLevels(frame, sampleRateHz, s.filter, levels);
  s.lastLevelDb = db;
  const floorMeasured = trackFloor(s, meanDb, Math.max(1, Math.round(t.floorWindowMs / FLOOR_BLOCKS / frameMs)));
  const enter = Math.max(s.floorDb + t.enterMarginDb, s.speechLevelDb - t.belowSpeechLevelDb, t.absoluteMinDb);
  // Hysteresis only while speaking: resuming from 'stopping' needs a real onset (enter threshold), so
  // background bursts in a pause neither extend the speech nor restart it.
  const speechy = external ?? db > (s.phase === 'speaking' ? enter - t.hysteresisDb : enter);
  if (external === undefined && db > enter) s.loudFrame = f;
  // Weak speech (noise_gate.ts), from our own levels only. Like an onset it must come within
  // belowSpeechLevelDb of the caller's level: a quieter talker behind the caller neither resumes nor starts speech.
  let weakGoesOn = false, weakOnset = -1;
  if (external === undefined) {
    const g = s.gate, excess = db - s.floorDb;
    const weak = excess > weakThresholdDb(g, t, frameMs) && db > Math.max(t.absoluteMinDb, s.speechLevelDb - t.belowSpeechLevelDb);
    if (floorMeasured && s.phase === 'quiet' && !weakBefore(g, t, frameMs)) observeBackground(g, excess, t, frameMs);
    pushWeak(g, weak);
    weakGoesOn = weakContinues(g, t, frameMs);
    weakOnset = weakOnsetAgo(g, t, frameMs);
    // Weak speech alone never starts a turn: a background that rises by a few dB looks just like it until the
    // floor catches up (up to floorWindowMs). Speech in noise has some syllables above the enter threshold.
    if (weakOnset >= 0 && !turnOpen && f - s.loudFrame > weakOnset) weakOnset = -1;
  }
  const startFrames = Math.max(1, Math.round(t.startMs / frameMs));
  const resumeFrames = Math.max(1, Math.round(t.resumeMs / frameMs));
  switch (s.phase) {
    // An onset is confirmed by startMs of speech above the enter threshold, or by mostly weak speech over the
    // longer weak onset window (bursty speech in heavy noise rarely gives the former: its loud frames come in twos).
    case 'quiet':
      if (weakOnset >= 0) return startSpeaking(s, f, f - weakOnset);
      if (speechy) { s.phase = 'starting'; s.run = 1; s.onsetFrame = f; }
      break;
    case 'starting':
      if (weakOnset >= 0) return startSpeaking(s, f, Math.min(s.onsetFrame, f - weakOnset));
      if (!speechy) { s.phase = 'quiet'; s.run = 0; break; }
      if (++s.run >= startFrames) return startSpeaking(s, f, s.onsetFrame);
      break;
    case 'speaking':
      if (speechy || weakGoesOn) { s.speechEndFrame = f + 1; break; }
      s.phase = 'stopping'; s.run = 0;
      break;
    case 'stopping':
      if (speechy) {
        if (++s.run >= resumeFrames) { s.phase = 'speaking'; s.speechEndFrame = f + 1; s.run = 0; }
        break;
      }
      s.run = 0;
      if (weakGoesOn) { s.phase = 'speaking'; s.speechEndFrame = f + 1; break; }
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

function startSpeaking(s: VadState, f: number, onsetFrame: number): VadChange {
  s.phase = 'speaking'; s.onsetFrame = onsetFrame; s.speechEndFrame = f + 1; s.run = 0;
  return 'started';
}

/**
 * Nothing is speech on the latest frame: quiet or stopping, and neither a possible onset (the enter threshold)
 * nor weak speech that may be the start of more (a noise frame above the weak threshold delays this by a frame).
 */
export function isSilent(s: VadState): boolean {
  return (s.phase === 'stopping' || s.phase === 'quiet') && (s.gate.bits & 1) === 0;
}

/** Silence (ms) since the last speech frame, as of the end of frame `f`. */
export function silenceMs(s: VadState, f: number, frameMs: number): number {
  return (f + 1 - s.speechEndFrame) * frameMs;
}

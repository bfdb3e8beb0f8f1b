/**
 * Weak-speech evidence that holds speech in heavy stationary noise.
 *
 * At 5 dB SNR most syllables sit only 1-5 dB above the noise floor, far below the VAD's onset margin, so the
 * VAD hears pauses inside sentences that outlast the turn timeout. But stationary noise is steady: its 20 ms
 * frame levels stay within a dB or so of their mean. So the threshold here comes from what the background
 * itself does (constant false-alarm rate): a frame is weak speech when its level above the floor exceeds the
 * background's mean excess by `weakSigmas` standard deviations, both measured on background frames.
 * Fluctuating backgrounds (babble, clicks, sparse mu-law noise) have a large spread, which raises the threshold
 * by itself. One frame decides nothing: speech goes on when most frames of a syllable-length window are weak
 * speech, and starts when most frames of a longer window are, which stationary noise does not do by chance.
 *
 * Pure: functions mutate only the state they are given. All numbers are plain, so the state serialises.
 */
import type { DetectorTuning } from './tuning.js';

export interface NoiseGateState {
  /** Background frames observed so far (saturates at the averaging length). */
  bgFrames: number;
  /** Running mean of (frame level - floor) over background frames, dB. */
  bgMeanDb: number;
  /** Running mean of its square, dB². */
  bgMeanSqDb: number;
  /** Weak-speech flags of the latest frames, bit 0 = the latest. */
  bits: number;
}

export function createNoiseGateState(): NoiseGateState {
  return { bgFrames: 0, bgMeanDb: 0, bgMeanSqDb: 0, bits: 0 };
}

/** Standard deviations above the background mean beyond which a frame is not background (normal odds 1:30,000). */
const OUTLIER_SIGMAS = 4;

/**
 * A background frame (the caller's side is quiet, and no weak speech was heard just before): update the
 * running statistics of its excess over the floor. A frame far above what the background does is a quiet
 * onset nothing has confirmed yet and would inflate the very spread it is measured against, so it is left
 * out; the cut sits well above the decision threshold, where trimming shrinks the estimated spread by a
 * negligible amount (a cut at the threshold itself shrank it a little on every frame, until the threshold
 * sank into the noise).
 */
export function observeBackground(g: NoiseGateState, excessDb: number, t: DetectorTuning, frameMs: number): void {
  if (g.bgFrames * frameMs >= t.backgroundMinMs && excessDb > g.bgMeanDb + OUTLIER_SIGMAS * spreadDb(g)) return;
  const n = Math.max(1, Math.round(t.backgroundTauMs / frameMs));
  if (g.bgFrames < n) g.bgFrames++;
  // Plain average while few frames are in, then an exponential average over about backgroundTauMs.
  const a = 1 / g.bgFrames;
  g.bgMeanDb += a * (excessDb - g.bgMeanDb);
  g.bgMeanSqDb += a * (excessDb * excessDb - g.bgMeanSqDb);
}

/** Excess over the floor (dB) above which a frame is weak speech; Infinity until enough background was heard. */
export function weakThresholdDb(g: NoiseGateState, t: DetectorTuning, frameMs: number): number {
  if (g.bgFrames * frameMs < t.backgroundMinMs) return Infinity;
  return g.bgMeanDb + t.weakSigmas * spreadDb(g);
}

function spreadDb(g: NoiseGateState): number {
  return Math.sqrt(Math.max(0, g.bgMeanSqDb - g.bgMeanDb * g.bgMeanDb));
}

function popcount(x: number): number {
  let c = 0;
  for (; x; x &= x - 1) c++;
  return c;
}

/** Frames in a window of `ms` (at most 30: the flags live in one 32-bit integer). */
function framesIn(ms: number, frameMs: number): number {
  return Math.min(30, Math.max(1, Math.round(ms / frameMs)));
}

/** Was any of the frames before the latest, within the onset window, weak speech? */
export function weakBefore(g: NoiseGateState, t: DetectorTuning, frameMs: number): boolean {
  return (g.bits & ((1 << framesIn(t.weakOnsetWindowMs, frameMs)) - 1)) !== 0;
}

/** Records whether the latest frame is weak speech (bit 0 = the latest). */
export function pushWeak(g: NoiseGateState, weak: boolean): void {
  g.bits = ((g.bits << 1) | (weak ? 1 : 0)) & 0x3fffffff;
}

/** The latest frame is weak speech and so were most frames of the last weakWindowMs: the speech goes on. */
export function weakContinues(g: NoiseGateState, t: DetectorTuning, frameMs: number): boolean {
  const n = framesIn(t.weakWindowMs, frameMs);
  return (g.bits & 1) === 1 && popcount(g.bits & ((1 << n) - 1)) >= Math.ceil(t.weakFraction * n);
}

/**
 * Most frames of the last weakOnsetWindowMs were weak speech, the latest included: speech started at the first
 * weak frame of that window. Returns how many frames before the latest that was, or -1.
 */
export function weakOnsetAgo(g: NoiseGateState, t: DetectorTuning, frameMs: number): number {
  const n = framesIn(t.weakOnsetWindowMs, frameMs);
  const w = g.bits & ((1 << n) - 1);
  if ((w & 1) === 0 || popcount(w) < Math.ceil(t.weakFraction * n)) return -1;
  return 31 - Math.clz32(w);
}

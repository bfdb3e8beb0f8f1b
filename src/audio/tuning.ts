/**
 * Detector constants, tuned on ../shared/corpus (see bench/audio_corpus.bench.ts). All durations in ms and are
 * rounded to whole 20 ms frames; levels in dB. Overridable per call for experiments via settings.tuning.
 */
export interface DetectorTuning {
  /** Enter threshold above the tracked noise floor. */
  enterMarginDb: number;
  /** Once speaking, a frame stays speech down to enter threshold minus this (hysteresis). */
  hysteresisDb: number;
  /** Never call anything below this speech (digital silence, mu-law idle noise). */
  absoluteMinDb: number;
  /** Threshold also sits at most this far below the caller's running speech level (rejects quieter background talkers). */
  belowSpeechLevelDb: number;
  /** How fast the remembered caller level falls while the line is quiet (dB/s). */
  speechLevelDecayDbPerS: number;
  /** Consecutive speech frames needed to confirm onset (rejects clicks). */
  startMs: number;
  /** Consecutive speech frames needed to resume from 'stopping' (a lone click must not restart speech). */
  resumeMs: number;
  /** Silence before SpeechStopped (VAD hangover); capped at the turn timeout. */
  stopMs: number;
  /** Added to the end of the last speech frame to estimate the true speech end (decay masked by noise). */
  endTailMs: number;
  /** Noise floor = minimum frame level over this window (minimum statistics). */
  floorWindowMs: number;
  /** Noise floor before anything has been measured. */
  initialFloorDb: number;
  /** Barge-in minimum speech duration at interruption sensitivity 1 and just above 0 (linear in between). */
  bargeInMinMsEager: number;
  bargeInMinMsReluctant: number;
  /** A pending barge-in whose speech stops before this long is recovered as false (backchannel, cough). */
  falseBargeInMaxSpeechMs: number;
  /** Default hard cap on one turn. */
  maxTurnMs: number;
  /** Weak speech (noise_gate.ts): frame excess over the floor above the background's mean + this many standard deviations. */
  weakSigmas: number;
  /** Weak speech in at least this fraction of the last weakWindowMs keeps speech going (resumes it from a pause). */
  weakFraction: number;
  weakWindowMs: number;
  /** ... and in that fraction of the last weakOnsetWindowMs starts it, when no frame reached the enter threshold. */
  weakOnsetWindowMs: number;
  /** Background statistics average over about this long, and count only after backgroundMinMs of background. */
  backgroundTauMs: number;
  backgroundMinMs: number;
}

export const DEFAULT_TUNING: DetectorTuning = {
  enterMarginDb: 10,
  hysteresisDb: 8,
  absoluteMinDb: -70,
  belowSpeechLevelDb: 12,
  speechLevelDecayDbPerS: 2,
  startMs: 60,
  resumeMs: 60,
  stopMs: 240,
  endTailMs: 60,
  floorWindowMs: 2400,
  initialFloorDb: -60,
  bargeInMinMsEager: 60,
  bargeInMinMsReluctant: 300,
  falseBargeInMaxSpeechMs: 700,
  maxTurnMs: 30_000,
  weakSigmas: 2,
  weakFraction: 0.6,
  weakWindowMs: 100,
  weakOnsetWindowMs: 200,
  backgroundTauMs: 500,
  backgroundMinMs: 200,
};

/**
 * Audio decisions as one tagged union. Every `atMs` is media time in ms from call start, counted in frames
 * (never wall clock): the end of the frame on which the decision was made. Other `*Ms` fields are estimates
 * of when something happened in the audio (earlier than the decision by the detector's built-in delay).
 */
export type AudioEvent =
  /** Caller speech confirmed; `speechStartMs` is the onset estimate. */
  | { type: 'SpeechStarted'; atMs: number; speechStartMs: number }
  /** Caller silent for the VAD hangover; `speechEndMs` is the end of the last speech frame. */
  | { type: 'SpeechStopped'; atMs: number; speechEndMs: number }
  /** The caller's turn is over: silence reached turnDetectionTimeoutMs, or the turn hit maxTurnMs. */
  | { type: 'TurnEnded'; atMs: number; speechStartMs: number; speechEndMs: number; reason: 'silence' | 'max_wait' }
  /** Caller speech over the agent lasted the sensitivity's minimum: the agent should stop (pending until resolved). */
  | { type: 'BargeInDetected'; atMs: number; speechStartMs: number }
  /** A pending barge-in proved real (its transcript is not a backchannel). */
  | { type: 'BargeInConfirmed'; atMs: number; speechStartMs: number }
  /** A pending barge-in proved false: the agent may resume. The caller's speech does not form a turn. */
  | { type: 'InterruptionRecovered'; atMs: number; speechStartMs: number; reason: 'backchannel' | 'short_speech' | 'no_words' };

export type AudioEventType = AudioEvent['type'];

/**
 * How a pending barge-in ended, as the call session decided from the caller's words (src/session/utterance.ts):
 * a backchannel or no words recover the interruption, anything else confirms it. The detector only hears sound.
 */
export type BargeInVerdict = 'backchannel' | 'no_words' | 'words';
export const BARGE_IN_VERDICTS: readonly BargeInVerdict[] = ['backchannel', 'no_words', 'words'];

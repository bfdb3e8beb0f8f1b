/**
 * Per-call audio decisions as pure steps over an explicit, JSON-serialisable state:
 * speech activity (vad.ts), end of turn, and barge-in while the agent speaks.
 *
 * `stepCallAudio` and `resolveBargeIn` MUTATE the state they are given and return the events decided.
 * (Workers receive a structured-clone copy and send it back, so the pool's copy is replaced, not shared.)
 * Time is the count of 20 ms frames processed, so replaying the same audio always gives the same events.
 */
import type { AudioEvent, BargeInVerdict } from './events.js';
import { DEFAULT_TUNING, type DetectorTuning } from './tuning.js';
import { createVadState, isSilent, vadStep, type VadState } from './vad.js';

export const CALL_FRAME_MS = 20;

export interface CallAudioSettings {
  sampleRateHz: 8000 | 16000;
  /** Caller silence that ends a turn (ms). */
  turnDetectionTimeoutMs: number;
  /** 0 = the caller never interrupts the agent, 1 = interrupt on the shortest speech. */
  interruptionSensitivity: number;
  /** Hard cap on a turn (ms); it ends with reason 'max_wait'. Default 30 s. */
  maxTurnMs?: number;
  /** Overrides for the detector constants (experiments, tuning). */
  tuning?: Partial<DetectorTuning>;
}

/** 'none': no barge-in; 'pending': detected, waiting for the transcript or the speech to end; 'confirmed'. */
export type BargeInPhase = 'none' | 'pending' | 'confirmed';

export interface CallAudioState {
  version: 1;
  settings: CallAudioSettings;
  tuning: DetectorTuning;
  frameSamples: number;
  /** Frames processed = media time / 20 ms. */
  frames: number;
  vad: VadState;
  turnOpen: boolean;
  turnStartMs: number;
  bargeIn: BargeInPhase;
  /** Speech frames heard while the agent was speaking, in the current vocalisation. */
  overlapFrames: number;
  /** Onset of the current vocalisation (ms). */
  speechStartMs: number;
}

export function createCallAudioState(settings: CallAudioSettings): CallAudioState {
  if (settings.sampleRateHz !== 8000 && settings.sampleRateHz !== 16000) {
    throw new RangeError(`sampleRateHz must be 8000 or 16000, got ${settings.sampleRateHz}`);
  }
  if (!(settings.turnDetectionTimeoutMs > 0)) throw new RangeError('turnDetectionTimeoutMs must be > 0');
  const s = settings.interruptionSensitivity;
  if (!(s >= 0 && s <= 1)) throw new RangeError('interruptionSensitivity must be within 0..1');
  const tuning = { ...DEFAULT_TUNING, ...settings.tuning };
  return {
    version: 1, settings: { ...settings }, tuning,
    frameSamples: (settings.sampleRateHz * CALL_FRAME_MS) / 1000,
    frames: 0, vad: createVadState(tuning),
    turnOpen: false, turnStartMs: 0, bargeIn: 'none', overlapFrames: 0, speechStartMs: 0,
  };
}

/** Minimum caller speech over the agent before BargeInDetected; Infinity at sensitivity 0. */
export function bargeInMinMs(sensitivity: number, t: DetectorTuning): number {
  if (sensitivity <= 0) return Infinity;
  return t.bargeInMinMsEager + (1 - sensitivity) * (t.bargeInMinMsReluctant - t.bargeInMinMsEager);
}

/**
 * Feeds whole 20 ms frames (pcm.length must be a multiple of state.frameSamples) heard while the agent
 * was (or was not) speaking. Mutates `state`; returns the events decided, in media-time order.
 */
export function stepCallAudio(state: CallAudioState, pcm: Int16Array, agentSpeaking: boolean): AudioEvent[] {
  return stepCallAudioWith(state, pcm, agentSpeaking);
}

/**
 * Same as stepCallAudio, but the per-frame speech decision may come from outside (`speechFlags[i]` for frame i,
 * e.g. a neural VAD in the comparison bench); the state machines, turn and barge-in logic are unchanged.
 */
export function stepCallAudioWith(state: CallAudioState, pcm: Int16Array, agentSpeaking: boolean, speechFlags?: ArrayLike<boolean>): AudioEvent[] {
  const n = state.frameSamples;
  if (pcm.length % n !== 0) throw new RangeError(`pcm length ${pcm.length} is not a multiple of ${n} samples (20 ms)`);
  const events: AudioEvent[] = [];
  for (let o = 0, i = 0; o < pcm.length; o += n, i++) {
    stepFrame(state, pcm.subarray(o, o + n), agentSpeaking, events, speechFlags?.[i]);
  }
  return events;
}

function stepFrame(s: CallAudioState, frame: Int16Array, agentSpeaking: boolean, out: AudioEvent[], external?: boolean): void {
  const f = s.frames++;
  const atMs = (f + 1) * CALL_FRAME_MS;
  const t = s.tuning;
  const timeoutMs = s.settings.turnDetectionTimeoutMs;
  const v = s.vad;
  const change = vadStep(v, frame, s.settings.sampleRateHz, f, t, CALL_FRAME_MS, Math.min(t.stopMs, timeoutMs), s.turnOpen, external);
  // The level detector loses the last tens of ms of decaying speech under noise: add them back.
  const speechEndMs = v.speechEndFrame * CALL_FRAME_MS + t.endTailMs;
  if (change === 'started') {
    s.speechStartMs = v.onsetFrame * CALL_FRAME_MS;
    out.push({ type: 'SpeechStarted', atMs, speechStartMs: s.speechStartMs });
    if (!s.turnOpen) { s.turnOpen = true; s.turnStartMs = s.speechStartMs; s.bargeIn = 'none'; }
  } else if (change === 'stopped') {
    out.push({ type: 'SpeechStopped', atMs, speechEndMs });
    if (s.bargeIn === 'pending' && speechEndMs - s.speechStartMs < t.falseBargeInMaxSpeechMs) {
      recover(s, atMs, 'short_speech', out);
    }
  }
  // Barge-in: count speech (including the onset run) that overlaps agent playback.
  if (v.phase === 'quiet') s.overlapFrames = 0;
  else if (agentSpeaking && (v.phase === 'starting' || v.phase === 'speaking')) s.overlapFrames++;
  if (s.bargeIn === 'none' && s.turnOpen && v.phase === 'speaking'
      && s.overlapFrames * CALL_FRAME_MS >= bargeInMinMs(s.settings.interruptionSensitivity, t)) {
    s.bargeIn = 'pending';
    out.push({ type: 'BargeInDetected', atMs, speechStartMs: s.speechStartMs });
  }
  if (!s.turnOpen) return;
  // Not while a possible onset is being confirmed (a click fails it within a frame or two).
  if (isSilent(v) && atMs - speechEndMs >= timeoutMs) {
    endTurn(s, atMs, speechEndMs, 'silence', out);
  } else if (atMs - s.turnStartMs >= (s.settings.maxTurnMs ?? t.maxTurnMs)) {
    endTurn(s, atMs, Math.min(speechEndMs, atMs), 'max_wait', out);
    if (v.phase === 'speaking' || v.phase === 'stopping') { s.turnOpen = true; s.turnStartMs = atMs; } // still talking: next turn
  }
}

function endTurn(s: CallAudioState, atMs: number, speechEndMs: number, reason: 'silence' | 'max_wait', out: AudioEvent[]): void {
  out.push({ type: 'TurnEnded', atMs, speechStartMs: s.turnStartMs, speechEndMs, reason });
  s.turnOpen = false;
  s.bargeIn = 'none';
}

function recover(s: CallAudioState, atMs: number, reason: 'backchannel' | 'short_speech' | 'no_words', out: AudioEvent[]): void {
  out.push({ type: 'InterruptionRecovered', atMs, speechStartMs: s.speechStartMs, reason });
  s.bargeIn = 'none';
  s.turnOpen = false; // a false interruption is not a caller turn
}

/**
 * The session has decided a pending barge-in from the caller's words: a backchannel (or no words) recovers the
 * interruption, anything else confirms it. No-op (returns []) unless a barge-in is pending. Mutates `state`.
 */
export function resolveBargeIn(state: CallAudioState, verdict: BargeInVerdict): AudioEvent[] {
  if (state.bargeIn !== 'pending') return [];
  const atMs = state.frames * CALL_FRAME_MS;
  const out: AudioEvent[] = [];
  if (verdict !== 'words') recover(state, atMs, verdict, out);
  else {
    state.bargeIn = 'confirmed';
    out.push({ type: 'BargeInConfirmed', atMs, speechStartMs: state.speechStartMs });
  }
  return out;
}

/**
 * Whole-recording analysis: run the per-call detector over a mono PCM16 file at any supported rate
 * (resampled to 16 kHz when it is not 8 or 16 kHz) and collect events and speech segments.
 */
import { createCallAudioState, stepCallAudio, type CallAudioSettings } from './call_audio.js';
import type { AudioEvent } from './events.js';
import { weakThresholdDb } from './noise_gate.js';
import { resample } from './resample.js';

export interface AnalyzeOptions extends Omit<CallAudioSettings, 'sampleRateHz'> {
  /** Media-time intervals [startMs, endMs) in which the agent was speaking (for barge-in decisions). */
  agentSpeaking?: { startMs: number; endMs: number }[];
}

export interface AnalyzeResult {
  events: AudioEvent[];
  /** Detected caller speech, from each SpeechStarted onset to the matching SpeechStopped end estimate (ms). */
  segments: { startMs: number; endMs: number }[];
  sampleRateHz: 8000 | 16000;
  durationMs: number;
  /**
   * The background as the detector measured it by the end (dBFS, 0.1 dB): its floor, and the level above which a
   * frame counted as weak speech (null when too little background was heard to tell).
   */
  background: { floorDb: number; weakSpeechAboveDb: number | null };
}

export function analyzePcm(pcm: Int16Array, sampleRateHz: number, opts: AnalyzeOptions): AnalyzeResult {
  const rate: 8000 | 16000 = sampleRateHz === 8000 ? 8000 : 16000;
  const audio = sampleRateHz === rate ? pcm : resample(pcm, sampleRateHz, rate);
  const { agentSpeaking = [], ...settings } = opts;
  const state = createCallAudioState({ ...settings, sampleRateHz: rate });
  const n = state.frameSamples;
  const frames = Math.floor(audio.length / n);
  const events: AudioEvent[] = [];
  const segments: { startMs: number; endMs: number }[] = [];
  let openStart = -1;
  for (let f = 0; f < frames; f++) {
    const ms = f * 20;
    const agent = agentSpeaking.some((a) => ms >= a.startMs && ms < a.endMs);
    for (const e of stepCallAudio(state, audio.subarray(f * n, (f + 1) * n), agent)) {
      events.push(e);
      if (e.type === 'SpeechStarted') openStart = e.speechStartMs;
      if (e.type === 'SpeechStopped' && openStart >= 0) { segments.push({ startMs: openStart, endMs: e.speechEndMs }); openStart = -1; }
    }
  }
  const durationMs = frames * 20;
  if (openStart >= 0) segments.push({ startMs: openStart, endMs: durationMs });
  const r1 = (x: number) => Math.round(x * 10) / 10;
  const weak = weakThresholdDb(state.vad.gate, state.tuning, 20);
  const background = { floorDb: r1(state.vad.floorDb), weakSpeechAboveDb: Number.isFinite(weak) ? r1(state.vad.floorDb + weak) : null };
  return { events, segments, sampleRateHz: rate, durationMs, background };
}

/**
 * Cuts a turn's audio to its speech before recognition: decoding costs CPU per second of audio, and the quiet
 * around a turn (the detector's end-of-turn wait, the pause before the caller speaks) carries no words. Frames within
 * SPEECH_BELOW_PEAK_DB of the loudest frame count as speech; SPEECH_MARGIN_MS is kept on both sides for soft onsets.
 */
const FRAME_MS = 20;
const SPEECH_BELOW_PEAK_DB = 35;
/** quiet kept on each side of speech: soft onsets, decaying ends (the live turns' held quiet keeps as much) */
export const SPEECH_MARGIN_MS = 200;

export function trimToSpeech(pcm: Int16Array, sampleRateHz: number): Int16Array {
  const n = (sampleRateHz * FRAME_MS) / 1000;
  const frames = Math.floor(pcm.length / n);
  if (frames === 0) return pcm;
  const energy = new Float64Array(frames);
  let peak = 0;
  for (let f = 0; f < frames; f++) {
    let e = 0;
    for (let i = f * n; i < (f + 1) * n; i++) e += pcm[i] * pcm[i];
    energy[f] = e / n;
    if (energy[f] > peak) peak = energy[f];
  }
  if (peak === 0) return pcm.subarray(0, 0);
  const floor = peak * 10 ** (-SPEECH_BELOW_PEAK_DB / 10);
  let first = 0, last = frames - 1;
  while (first < frames && energy[first] < floor) first++;
  while (last > first && energy[last] < floor) last--;
  const margin = SPEECH_MARGIN_MS / FRAME_MS;
  return pcm.subarray(Math.max(0, first - margin) * n, Math.min(frames, last + 1 + margin) * n);
}

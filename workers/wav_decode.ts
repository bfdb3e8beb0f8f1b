/**
 * Piscina task: a demo audio turn's WAV, decoded and resampled to a speech rate off the event loop (resampling a
 * minute of 48 kHz audio is hundreds of milliseconds of CPU). Pure: bytes in, PCM out (transferred). Audio errors
 * come back as values: an Error's class does not survive the thread hop.
 */
import { AudioError, readWav, resample } from '../src/audio/index.js';
import { move, transferableSymbol, valueSymbol } from 'piscina';

export interface WavDecodeTask {
  wav: ArrayBuffer; maxBytes: number; maxDurationMs: number;
  /** lower rates are refused before any resampling (a few bytes at 7 Hz would resample into seconds of 16 kHz audio) */
  minSampleRateHz: number;
}

export type WavDecodeResult =
  | { ok: true; pcm: ArrayBuffer; rateHz: 8000 | 16000; sampleRateHz: number; channels: number; durationMs: number }
  | { ok: false; code: string; message: string };

export default function wavDecode(task: WavDecodeTask): WavDecodeResult {
  try {
    const d = readWav(new Uint8Array(task.wav), { maxBytes: task.maxBytes, maxDurationMs: task.maxDurationMs });
    if (d.sampleRateHz < task.minSampleRateHz) {
      return { ok: false, code: 'sample_rate_too_low', message: `sample rate ${d.sampleRateHz} Hz is below the ${task.minSampleRateHz} Hz this route accepts` };
    }
    // Recognition and detection run at a telephone or wideband rate: 8 kHz stays, everything else becomes 16 kHz.
    const rateHz = d.sampleRateHz === 8000 ? 8000 : 16000;
    const pcm = d.sampleRateHz === rateHz ? d.pcm.slice() : resample(d.pcm, d.sampleRateHz, rateHz);
    const result: WavDecodeResult = { ok: true, pcm: pcm.buffer as ArrayBuffer, rateHz, sampleRateHz: d.sampleRateHz, channels: d.channels, durationMs: d.durationMs };
    return move({ [transferableSymbol]: [result.pcm], [valueSymbol]: result } as never) as unknown as WavDecodeResult;
  } catch (err) {
    if (err instanceof AudioError) return { ok: false, code: err.code, message: err.message };
    throw err;
  }
}

/**
 * Bench lines as a caller's turn arrives: speech through a telephone line (8 kHz, G.711 mu-law) with 0.3 s of quiet
 * before and 0.5 s after (as the speech-dev set is stored), optionally with pink noise; and the voices that say
 * them: the four Flite voices always, espeak-ng and festival when those Debian programs are installed
 * (`apt-get install -y espeak-ng festival`; only benches use them).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulawDecode, mulawEncode, readWav, resample } from '../src/audio/index.js';
import { renderAt } from '../src/speech/voice/render.js';
import { colouredNoise } from './audio_noise.js';

const BEFORE = 2400;
const AFTER = 4000;

/** A voice's audio at `rateHz` as 8 kHz telephone audio with quiet around it. */
export function phoneLine(pcm: Int16Array, rateHz: number): Int16Array {
  const speech = mulawDecode(mulawEncode(resample(pcm, rateHz, 8000)));
  const out = new Int16Array(BEFORE + speech.length + AFTER);
  out.set(speech, BEFORE);
  return out;
}

/** Seeded pink noise at `snr` dB under the power of a phone line's speech (the part between its quiet edges). */
export function withPinkNoise(pcm: Int16Array, snr: number, seed: number): Int16Array {
  if (snr === Infinity) return pcm;
  let e = 0;
  for (let i = BEFORE; i < pcm.length - AFTER; i++) e += pcm[i] * pcm[i];
  const noise = colouredNoise('pink', pcm.length, seed, 8000);
  const gain = Math.sqrt(e / (pcm.length - BEFORE - AFTER) / 10 ** (snr / 10));
  return Int16Array.from(pcm, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + gain * noise[i]))));
}

export const FLITE_VOICES = ['kal16', 'slt', 'rms', 'awb'] as const;
export const ESPEAK_VOICES = ['en+m3', 'en-us+f2', 'en-gb-scotland', 'en+f4', 'en-029', 'en-us+m1'];

const installed = (program: string) => { try { execFileSync('which', [program]); return true; } catch { return false; } };
let scratch: string | undefined;

/** A line said by a Debian program's voice, through a phone line. */
function external(program: 'espeak' | 'festival', voice: string, text: string): Int16Array {
  scratch ??= mkdtempSync(join(tmpdir(), 'bench-voices-'));
  const wav = join(scratch, 'line.wav');
  if (program === 'espeak') execFileSync('espeak-ng', ['-v', voice, '-w', wav, text]);
  else { writeFileSync(join(scratch, 'line.txt'), text); execFileSync('text2wave', [join(scratch, 'line.txt'), '-o', wav]); }
  const w = readWav(readFileSync(wav));
  return phoneLine(w.pcm, w.sampleRateHz);
}

export type Family = 'espeak-ng' | 'festival' | 'flite';

/**
 * Every installed voice, by family, as a function from a line's text to its phone line; says which families are
 * left out. Flite must be loaded (`loadFlite()`).
 */
export function benchVoices(): Array<{ family: Family; voice: string; say: (text: string) => Int16Array }> {
  const voices: Array<{ family: Family; voice: string; say: (text: string) => Int16Array }> = [];
  if (installed('espeak-ng')) for (const v of ESPEAK_VOICES) voices.push({ family: 'espeak-ng', voice: v, say: (t) => external('espeak', v, t) });
  else console.log('espeak-ng is not installed: its voices are left out');
  if (installed('text2wave')) voices.push({ family: 'festival', voice: 'kal_diphone', say: (t) => external('festival', '', t) });
  else console.log('festival is not installed: its voice is left out');
  for (const v of FLITE_VOICES) voices.push({ family: 'flite', voice: v, say: (t) => phoneLine(renderAt(t, v, 16000), 16000) });
  return voices;
}

/**
 * Key presses (DTMF) on a call. In: each carrier's media stream reports the caller's keys (Twilio, Plivo and Exotel
 * `dtmf` events; see their READMEs). Out: tones the agent sends, for a phone menu at the other end: a carrier with an
 * out-of-band way sends the digits as such (Plivo `sendDTMF`); every other one gets them in-band, as the tones
 * themselves in the call's audio (ITU-T Q.23 frequency pairs, Q.24 timing: 100 ms of tone and 100 ms of silence per
 * key, well above the 40 ms a receiver needs), which any telephone line carries.
 */
import { mulawEncode } from '../audio/g711.js';
import { PHONE_FRAME_SAMPLES } from '../audio/framing.js';

/** the keys of a telephone keypad (A-D exist on the standard but not on phones) */
export const KEY_DIGITS = '0123456789*#ABCD';
export const isKeyDigit = (d: string): boolean => d.length === 1 && KEY_DIGITS.includes(d);
/** what may be sent as tones: keys, and `w` for a half-second wait (as carriers' send-digits verbs take it) */
export const SEND_DIGITS = /^[0-9*#ABCDw]{1,32}$/;

const ROW = [697, 770, 852, 941];
const COL = [1209, 1336, 1477, 1633];
const LAYOUT = ['123A', '456B', '789C', '*0#D'];
const TONE_FRAMES = 5; // 100 ms
const GAP_FRAMES = 5; // 100 ms
const WAIT_FRAMES = 25; // 500 ms for a `w`
/** each of the pair at about -10 dBm0: together well below clipping, well above a receiver's threshold */
const AMPLITUDE = 7000;

function tone(digit: string): Int16Array {
  const r = LAYOUT.findIndex((row) => row.includes(digit));
  const low = ROW[r];
  const high = COL[LAYOUT[r].indexOf(digit)];
  const pcm = new Int16Array(TONE_FRAMES * PHONE_FRAME_SAMPLES);
  for (let i = 0; i < pcm.length; i++) {
    const t = i / 8000;
    pcm[i] = Math.round(AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)));
  }
  return pcm;
}

/** The digits as in-band tones: 20 ms mu-law frames at 8 kHz, ready for the playout. */
export function dtmfFrames(digits: string): Uint8Array[] {
  const frames: Uint8Array[] = [];
  const silence = (n: number) => { for (let i = 0; i < n; i++) frames.push(mulawEncode(new Int16Array(PHONE_FRAME_SAMPLES))); };
  for (const d of digits) {
    if (d === 'w') { silence(WAIT_FRAMES); continue; }
    if (!isKeyDigit(d)) continue;
    const pcm = tone(d);
    for (let f = 0; f < TONE_FRAMES; f++) frames.push(mulawEncode(pcm.subarray(f * PHONE_FRAME_SAMPLES, (f + 1) * PHONE_FRAME_SAMPLES)));
    silence(GAP_FRAMES);
  }
  return frames;
}

/** The key a stretch of audio holds, by Goertzel energy at the eight frequencies (tests, and the simulator's ear). */
export function detectDigit(pcm: Int16Array): string | undefined {
  const power = (f: number) => {
    const k = 2 * Math.cos((2 * Math.PI * f) / 8000);
    let s1 = 0, s2 = 0;
    for (const x of pcm) { const s0 = x + k * s1 - s2; s2 = s1; s1 = s0; }
    return s1 * s1 + s2 * s2 - k * s1 * s2;
  };
  const rows = ROW.map(power);
  const cols = COL.map(power);
  const r = rows.indexOf(Math.max(...rows));
  const c = cols.indexOf(Math.max(...cols));
  const total = pcm.reduce((a, x) => a + x * x, 0) * pcm.length;
  // the two strongest components must carry much of the energy (a pure pair: half), or it is speech or silence
  if (total === 0 || rows[r] + cols[c] < 0.25 * total) return undefined;
  return LAYOUT[r][c];
}

/**
 * Live turns on noisy lines: bench lines (bench/speech_lines.ts) in four Flite voices through a phone line, pink noise
 * at 20 and 12 dB SNR (and none), each decoded live in 200 ms pieces as on a call, then heard whole where the live
 * decoding rejected it; side by side on the same audio:
 * - Wiener live, its text kept: how live turns were heard before (the Wiener filter on every live turn);
 * - a call's first turn: live through the Wiener filter, recognised whole (by RNNoise) once its line turns out noisy;
 * - later turns: live through RNNoise where the call's turn before found the line noisy (src/speech/ears/stt.ts), the
 *   lines of a voice taken as one call;
 * - the whole turn only (the demo route).
 * Asked the budget, every field open. Latency: end of turn to final text (the live close, plus the whole hearing).
 *
 *   npm run bench -- speech_live_noise      (about 11 minutes on this machine class)
 */
import type { ListenHint } from '../src/adapters/types.js';
import { NoiseSuppressor } from '../src/speech/ears/denoise.js';
import { endLive, feedLive, startLive } from '../src/speech/ears/live.js';
import { grammarFor, heardFrom, newDecoder, recognise, setGrammar, toFloat } from '../src/speech/ears/recogniser.js';
import { FramePowers } from '../src/speech/ears/stand_out.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { renderAt } from '../src/speech/voice/render.js';
import { phoneLine, withPinkNoise, FLITE_VOICES } from './phone_line.js';
import { IN_GRAMMAR, OUT_OF_GRAMMAR, asRead } from './speech_lines.js';
await loadFlite();
const hint: ListenHint = { asking: 'budget', open: ['customer_name', 'budget', 'scheduled_slot', 'intent'] };
const lines = FLITE_VOICES.flatMap((voice) => [...IN_GRAMMAR.map((text) => ({ text, oog: false })), ...OUT_OF_GRAMMAR.map((text) => ({ text, oog: true }))]
  .map((l) => ({ ...l, voice, pcm: phoneLine(renderAt(l.text, voice, 16000), 16000) })));
const old = await newDecoder();
setGrammar(old, grammarFor(old, hint), undefined);
const PIECE = 1600;
function oldLive(pcm: Int16Array) {
  const s = new NoiseSuppressor(); const p = new FramePowers(); p.push(pcm);
  old.start();
  for (let i = 0; i < pcm.length - PIECE; i += PIECE) { const c = s.process(pcm.subarray(i, i + PIECE)); if (c.length) old.process_audio(toFloat(c), false, false); }
  const t0 = performance.now();
  const last = Math.floor((pcm.length - 1) / PIECE) * PIECE;
  const c = s.process(pcm.subarray(last)); if (c.length) old.process_audio(toFloat(c), false, false);
  const f = s.flush(); if (f.length) old.process_audio(toFloat(f), false, false);
  old.stop();
  return { h: heardFrom(old, p.powers), ms: performance.now() - t0 };
}
async function newLive(pcm: Int16Array, noisy: boolean) {
  const last = Math.floor((pcm.length - 1) / PIECE) * PIECE;
  await startLive('t', hint, pcm.subarray(0, PIECE), noisy);
  for (let i = PIECE; i < last; i += PIECE) feedLive('t', pcm.subarray(i, i + PIECE));
  const t0 = performance.now();
  const h = endLive('t', pcm.subarray(last))!;
  return { h, ms: performance.now() - t0 };
}
async function whole(pcm: Int16Array) { const t0 = performance.now(); const h = await recognise(trimToSpeech(pcm, 8000), 8000, hint); return { h, ms: performance.now() - t0 }; }
await recognise(new Int16Array(0), 8000, hint);
const rows = [];
let previousNoisy = false;
// the same noise draw for every path: line i gets seed i + 1
for (const snr of [Infinity, 20, 12]) {
  const acc: Record<string, { right: number; wrong: number; rej: number; oog: number; lat: number[]; wholeN: number }> = {};
  for (const [i, l] of lines.entries()) {
    const pcm = withPinkNoise(l.pcm, snr, i + 1);
    const w = await whole(pcm);
    const o = oldLive(pcm);
    const nFirst = await newLive(pcm, false);
    // a call's later turn: suppressed as the call's turn before found its line (the previous line in this voice)
    const nNext = await newLive(pcm, i > 0 && lines[i - 1].voice === l.voice && previousNoisy);
    previousNoisy = nNext.h.noisyLine;
    const variants: Record<string, { text: string; ms: number; wholeUsed: boolean }> = {
      'Wiener live, its text kept (before)': o.h.rejected ? { text: w.h.text, ms: o.ms + w.ms, wholeUsed: true } : { text: o.h.text, ms: o.ms, wholeUsed: false },
      'first turn: Wiener live, whole if noisy': nFirst.h.rejected ? { text: w.h.text, ms: nFirst.ms + w.ms, wholeUsed: true } : { text: nFirst.h.text, ms: nFirst.ms, wholeUsed: false },
      'later turns: as the turn before found the line': nNext.h.rejected ? { text: w.h.text, ms: nNext.ms + w.ms, wholeUsed: true } : { text: nNext.h.text, ms: nNext.ms, wholeUsed: false },
      'whole turn only': { text: w.h.text, ms: w.ms, wholeUsed: true },
    };
    for (const [k, v] of Object.entries(variants)) {
      const a = (acc[k] ??= { right: 0, wrong: 0, rej: 0, oog: 0, lat: [], wholeN: 0 });
      a.lat.push(v.ms); if (v.wholeUsed) a.wholeN++;
      if (l.oog) { if (v.text) a.oog++; }
      else if (!v.text) a.rej++;
      else if (asRead(v.text) === asRead(l.text)) a.right++; else a.wrong++;
    }
  }
  for (const [k, a] of Object.entries(acc)) {
    a.lat.sort((x, y) => x - y);
    rows.push({ 'pink noise SNR dB': snr === Infinity ? 'none' : snr, path: k, right: a.right, wrong: a.wrong, rejected: a.rej,
      'out-of-grammar accepted': `${a.oog}/${lines.filter((l) => l.oog).length}`, 'heard whole': `${a.wholeN}/${lines.length}`, 'final text p50 ms': Math.round(a.lat[a.lat.length >> 1]), 'p90 ms': Math.round(a.lat[Math.floor(a.lat.length * 0.9)]) });
  }
}
console.log(`answers right / wrong / rejected of ${lines.filter((l) => !l.oog).length}`);
console.table(rows);

/**
 * The offline grammar recogniser, in-thread (as on its speech worker): CPU per second of speech and time to the
 * final text, per grammar (every field open, and each field asked alone), over the speech-dev turns cut to their
 * speech as the adapter does; then the speech-dev set scored by field with the same recogniser and the scripted
 * dialog's extractors left out (that score, through the demo route, is in test/speech/speech_dev.test.ts).
 * Then line noise: bench lines (bench/speech_lines.ts) with pink noise, and noise alone, heard through each noise
 * suppression (the Wiener filter, RNNoise, the ears' choice between them by the line's SNR, none); and real human
 * speech no grammar holds (the corpora's LibriVox sentences), which must be rejected.
 * Also the offline voice: time to the first sentence's audio.
 *
 *   npm run bench -- speech_ears          (SPEECH_DEV_DIR overrides ../shared/speech-dev)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readWav } from '../src/audio/index.js';
import type { ListenHint } from '../src/adapters/types.js';
import type { Decoder } from 'soundswallower';
import { grammarFor, heardFrom, isNoisyLine, newDecoder, recognise, setGrammar, suppressTurnNoise, toFloat } from '../src/speech/ears/recogniser.js';
import { suppressLineNoise } from '../src/speech/ears/rnnoise.js';
import { FramePowers } from '../src/speech/ears/stand_out.js';
import { suppressNoise } from '../src/speech/ears/denoise.js';
import { spokenToText } from '../src/speech/ears/reading.js';
import { endLive, feedLive, startLive } from '../src/speech/ears/live.js';
import { FEED_MS } from '../src/speech/ears/stt.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { renderAt } from '../src/speech/voice/render.js';
import { loadManifest } from './speech_dev_lib.js';
import { humanBookTurns } from './audio_corpus_lib.js';
import { colouredNoise } from './audio_noise.js';
import { phoneLine, withPinkNoise } from './phone_line.js';
import { IN_GRAMMAR, OUT_OF_GRAMMAR } from './speech_lines.js';

/** words the recogniser may add around an answer without changing it */
const FILLERS = new Set(['um', 'uh', 'well', 'so', 'okay', 'please', 'thanks']);

/** How a turn's noise is suppressed: the recogniser's choice by the line's SNR, one suppressor always, or none. */
type Suppression = 'as the ears (by line SNR)' | 'Wiener' | 'RNNoise' | 'off';
const SUPPRESS: Record<Suppression, (pcm: Int16Array, powers: number[]) => Int16Array> = {
  'as the ears (by line SNR)': (pcm, powers) => suppressTurnNoise(pcm, isNoisyLine(powers)), Wiener: (pcm) => suppressNoise(pcm), RNNoise: (pcm) => suppressLineNoise(pcm, 8000), off: (pcm) => pcm,
};

/** One turn through a decoder as the recogniser hears it, with a given noise suppression. */
function hearWith(d: Decoder, pcm: Int16Array, suppress: Suppression) {
  const powers = new FramePowers();
  powers.push(pcm);
  d.start();
  d.process_audio(toFloat(SUPPRESS[suppress](pcm, powers.powers)), false, true);
  d.stop();
  return heardFrom(d, powers.powers);
}

const dir = process.env.SPEECH_DEV_DIR ?? path.resolve('../shared/speech-dev');
const alt = path.resolve('../../shared/speech-dev');
const setDir = existsSync(dir) ? dir : existsSync(alt) ? alt : undefined;
if (!setDir) { console.log(`no speech-dev set at ${dir}: skipped`); process.exit(0); }
const turns = loadManifest(setDir).flatMap((c) => c.turns.map((t) => ({ ...t, pcm: trimToSpeech(readWav(new Uint8Array(readFileSync(path.join(setDir, t.file)))).pcm, 8000) })));
const speechSeconds = turns.reduce((a, t) => a + t.pcm.length / 8000, 0);

const hints: Array<[string, ListenHint | undefined]> = [
  ['every field open (no hint)', undefined],
  ['asked: customer_name', { asking: 'customer_name', open: ['customer_name'] }],
  ['asked: budget', { asking: 'budget', open: ['budget'] }],
  ['asked: scheduled_slot', { asking: 'scheduled_slot', open: ['scheduled_slot'] }],
  ['asked: intent', { asking: 'intent', open: ['intent'] }],
  ['yes/no question', { open: [], yesNo: true }],
];
const rows = [];
await recognise(new Int16Array(0), 8000); // loads the decoder
for (const [label, hint] of hints) {
  const g0 = performance.now();
  await recognise(new Int16Array(0), 8000, hint); // builds the grammar
  const buildMs = performance.now() - g0;
  const c0 = process.cpuUsage();
  const lat: number[] = [];
  let accepted = 0;
  for (const t of turns) {
    const t0 = performance.now();
    const r = await recognise(t.pcm, 8000, hint);
    lat.push(performance.now() - t0);
    if (!r.rejected) accepted++;
  }
  const c = process.cpuUsage(c0);
  lat.sort((a, b) => a - b);
  rows.push({ grammar: label, 'build ms': Math.round(buildMs), 'CPU ms per speech s': Math.round((c.user + c.system) / 1000 / speechSeconds),
    'final text p50 ms': Math.round(lat[Math.floor(lat.length / 2)]), 'final text max ms': Math.round(lat.at(-1)!), accepted: `${accepted}/${turns.length}` });
}
console.log(`${turns.length} turns, ${speechSeconds.toFixed(1)} s of speech after trimming`);
console.table(rows);

// Live turns (the adapter on calls): the audio goes to the decoder in pieces (FEED_MS) while the caller speaks; at the
// end of the turn only the last piece and the search's close remain, which is the wait for the final text. Twice the
// calls' piece length (the earlier setting) runs beside it.
const liveRows = [];
for (const pieceMs of [FEED_MS, 2 * FEED_MS]) for (const [label, hint] of hints) {
  const PIECE = (pieceMs * 8000) / 1000;
  await startLive('warm', hint, new Int16Array(PIECE)); // the grammar on a live decoder, as a turn asked the same field finds it
  endLive('warm', new Int16Array(0));
  const c0 = process.cpuUsage();
  const lat: number[] = [];
  let accepted = 0, same = 0;
  const texts: string[] = [];
  for (const t of turns) {
    const last = Math.max(0, Math.floor((t.pcm.length - 1) / PIECE) * PIECE);
    await startLive('turn', hint, t.pcm.subarray(0, Math.min(PIECE, last)));
    for (let i = PIECE; i < last; i += PIECE) feedLive('turn', t.pcm.subarray(i, i + PIECE));
    const t0 = performance.now();
    const r = endLive('turn', t.pcm.subarray(last))!;
    lat.push(performance.now() - t0);
    if (!r.rejected) accepted++;
    texts.push(r.text);
  }
  const c = process.cpuUsage(c0);
  for (const [i, t] of turns.entries()) if (texts[i] === (await recognise(t.pcm, 8000, hint)).text) same++;
  lat.sort((a, b) => a - b);
  liveRows.push({ 'piece ms': pieceMs, grammar: label, 'CPU ms per speech s': Math.round((c.user + c.system) / 1000 / speechSeconds),
    'end of turn to final text p50 ms': Math.round(lat[Math.floor(lat.length / 2)]), 'max ms': Math.round(lat.at(-1)!),
    accepted: `${accepted}/${turns.length}`, 'same text as whole': `${same}/${turns.length}` });
}
console.log(`live turns: pieces decoded as they come (calls send ${FEED_MS} ms); at the end of the turn the last piece and the close`);
console.table(liveRows);
console.log('every field open, turn by turn:');
for (const t of turns) console.log(`  ${JSON.stringify(t.text).padEnd(60)} -> ${JSON.stringify((await recognise(t.pcm, 8000)).text)}`);

// Line noise: bench lines (not the speech-dev set) in four Flite voices through a phone line, pink noise mixed at
// a signal-to-noise ratio over each line's speech, heard with each noise suppression (RNNoise alone only clean, where
// the ears do not use it), asked budget.
await loadFlite();
const lines = (['kal16', 'slt', 'rms', 'awb'] as const).flatMap((voice) => [...IN_GRAMMAR.map((text) => ({ text, oog: false })),
  ...OUT_OF_GRAMMAR.map((text) => ({ text, oog: true }))].map((l) => ({ ...l, voice, pcm: phoneLine(renderAt(l.text, voice, 16000), 16000) })));
const decoder = await newDecoder();
setGrammar(decoder, grammarFor(decoder, { asking: 'budget', open: ['budget'] }), undefined);
const said = (text: string) => spokenToText(text.toLowerCase().replace(/[^a-z' ]/g, ' ').split(/\s+/).filter(Boolean));
const noiseRows = [];
for (const snr of [Infinity, 25, 20, 12]) {
  for (const suppress of ['Wiener', 'as the ears (by line SNR)', ...(snr === Infinity ? ['RNNoise' as const] : [])] as Suppression[]) {
    let right = 0, rejected = 0, oogAccepted = 0;
    for (const [i, l] of lines.entries()) {
      const r = hearWith(decoder, trimToSpeech(withPinkNoise(l.pcm, snr, i + 1), 8000), suppress);
      if (l.oog) oogAccepted += r.rejected ? 0 : 1;
      else if (r.rejected) rejected++;
      else if (r.text.split(' ').filter((w) => !FILLERS.has(w)).join(' ') === said(l.text)) right++;
    }
    const inCount = lines.filter((l) => !l.oog).length;
    noiseRows.push({ 'pink noise SNR dB': snr === Infinity ? 'none' : snr, 'noise suppression': suppress,
      'lines heard right': `${right}/${inCount}`, 'wrong': inCount - right - rejected, rejected, 'out-of-grammar accepted': `${oogAccepted}/${lines.length - inCount}` });
  }
}
console.log('line noise: bench lines in four Flite voices, asked budget (one answer of any field)');
console.table(noiseRows);

// Noise alone (no speech): two seconds of each colour, six seeds, every field open and asked budget; none may be an answer.
const openDecoder = await newDecoder();
setGrammar(openDecoder, grammarFor(openDecoder, undefined), undefined);
const aloneRows = [];
for (const suppress of ['off', 'Wiener', 'as the ears (by line SNR)'] as Suppression[]) {
  let accepted = 0, clips = 0;
  for (const colour of ['white', 'pink', 'brown'] as const) {
    for (let seed = 1; seed <= 6; seed++) {
      const pcm = Int16Array.from(colouredNoise(colour, 16000, seed, 8000), (v) => Math.round(v * 2000));
      for (const d of [openDecoder, decoder]) { clips++; if (!hearWith(d, pcm, suppress).rejected) accepted++; }
    }
  }
  aloneRows.push({ 'noise suppression': suppress, 'noise alone accepted': `${accepted}/${clips}` });
}
console.table(aloneRows);

// Real human speech no grammar holds: the LibriVox book sentences of the turn-taking corpora (clean and in noise),
// each turn heard as the adapter hears it under every hint; none may be an answer.
const humanRows = [];
const humanTurns = humanBookTurns();
for (const [label, hint] of hints) {
  const accepted: string[] = [];
  for (const t of humanTurns) { const r = await recognise(t.pcm, 8000, hint); if (!r.rejected) accepted.push(`${t.scenario}: ${r.text}`); }
  humanRows.push({ grammar: label, 'human book sentences accepted': `${accepted.length}/${humanTurns.length}`, as: accepted.join('; ') });
}
console.log('real human speech (LibriVox sentences of the turn-taking corpora), out of every grammar');
console.table(humanRows);

const voiceRows = [];
for (const voice of ['kal16', 'slt', 'rms', 'awb'] as const) {
  renderAt('Warm up.', voice, 8000);
  const t0 = performance.now();
  const pcm = renderAt('Thank you. What budget do you have in mind?', voice, 8000);
  voiceRows.push({ voice, 'render ms (one sentence)': Math.round(performance.now() - t0), 'audio s': (pcm.length / 8000).toFixed(2) });
}
console.table(voiceRows);

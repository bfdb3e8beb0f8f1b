/**
 * The offline grammar recogniser, in-thread (as on its speech worker): CPU per second of speech and time to the
 * final text, per grammar (every field open, and each field asked alone), over the speech-dev turns cut to their
 * speech as the adapter does; then the speech-dev set scored by field with the same recogniser and the scripted
 * dialog's extractors left out (that score, through the demo route, is in test/speech/speech_dev.test.ts).
 * Also the offline voice: time to the first sentence's audio.
 *
 *   npm run bench -- speech_ears          (SPEECH_DEV_DIR overrides ../shared/speech-dev)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readWav } from '../src/audio/index.js';
import type { ListenHint } from '../src/adapters/types.js';
import { recognise } from '../src/speech/ears/recogniser.js';
import { endLive, feedLive, startLive } from '../src/speech/ears/live.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { renderAt } from '../src/speech/voice/render.js';
import { loadManifest } from './speech_dev_lib.js';

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

// Live turns (the adapter on calls): the audio goes to the decoder in 200 ms pieces while the caller speaks; at the end
// of the turn only the last piece and the search's close remain, which is the wait for the final text.
const PIECE = 1600;
const liveRows = [];
for (const [label, hint] of hints) {
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
  liveRows.push({ grammar: label, 'CPU ms per speech s': Math.round((c.user + c.system) / 1000 / speechSeconds),
    'end of turn to final text p50 ms': Math.round(lat[Math.floor(lat.length / 2)]), 'max ms': Math.round(lat.at(-1)!),
    accepted: `${accepted}/${turns.length}`, 'same text as whole': `${same}/${turns.length}` });
}
console.log('live turns: 200 ms pieces decoded as they come; at the end of the turn the last piece and the close');
console.table(liveRows);
console.log('every field open, turn by turn:');
for (const t of turns) console.log(`  ${JSON.stringify(t.text).padEnd(60)} -> ${JSON.stringify((await recognise(t.pcm, 8000)).text)}`);

await loadFlite();
const voiceRows = [];
for (const voice of ['kal16', 'slt', 'rms', 'awb'] as const) {
  renderAt('Warm up.', voice, 8000);
  const t0 = performance.now();
  const pcm = renderAt('Thank you. What budget do you have in mind?', voice, 8000);
  voiceRows.push({ voice, 'render ms (one sentence)': Math.round(performance.now() - t0), 'audio s': (pcm.length / 8000).toFixed(2) });
}
console.table(voiceRows);

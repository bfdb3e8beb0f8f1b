/**
 * Whether the browser's voice processing changes what the grammar recogniser hears of a site call
 * (web/src/site/call.ts opens the microphone with echo cancellation, noise suppression and auto gain control on).
 * The answer lines of bench/speech_lines.ts (IN_GRAMMAR) said by three voices (Flite slt, festival's diphone voice,
 * espeak-ng en-us+f2) at 16 kHz, each at -26 dBFS, 0.5 s of quiet before and 1 s after, make one file with a
 * microphone's floor (pink noise 45 dB under the speech: no processing sees digital zero) and one with pink noise
 * at SITE_MIC_SNR dB under it (default 10). Chromium plays each file as its fake microphone
 * (--use-file-for-fake-audio-capture) into getUserMedia, one browser per file and constraint set (a second
 * getUserMedia with other constraints in the same browser got the first one's processing):
 * A echo cancellation, noise suppression, gain control (the call today); B echo cancellation only; C all off (as
 * web/src/site/mic.ts); D echo cancellation and gain control. Each capture is aligned to its file line by line, to
 * the sample, brought to 8 kHz as the browser carrier does, trimmed to speech and recognised on the service's
 * speech threads (workers/speech.ts) with the line's field asked and with nothing asked; the files themselves, with
 * no browser, are the baseline. Prints what each set does to the level, then per set, file and grammar: answers
 * heard right / heard as something else / rejected, and how many lines turned right or stopped being right against
 * C (the same capture with no processing; C against the file shows what the capture itself changes).
 * Needs /usr/bin/chromium, espeak-ng and festival.
 *
 *   npm run bench -- site_mic
 *   SITE_MIC_SNR=20 npm run bench -- site_mic
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { chromium } from 'playwright-core';
import { readWav, resample, writeWav } from '../src/audio/index.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { loadFlite } from '../src/speech/voice/flite.js';
import { renderAt } from '../src/speech/voice/render.js';
import type { SpeechResult, SpeechTask } from '../workers/speech.js';
import { colouredNoise } from './audio_noise.js';
import { asRead, IN_GRAMMAR } from './speech_lines.js';

const RATE = 16000;
const SPEECH_DBFS = -26;
/** the noisy file's pink noise under the speech (SITE_MIC_SNR, default 10 dB); the clean file has a microphone's floor */
const SNR_DB = Number(process.env.SITE_MIC_SNR ?? 10);
const FLOOR_SNR_DB = 45;
const LEAD_S = 2, BEFORE_S = 0.5, AFTER_S = 1, TAIL_S = 3;
const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'];
const SETS = {
  'A EC+NS+AGC (call today)': { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  'B EC only': { echoCancellation: true, noiseSuppression: false, autoGainControl: false },
  'C all off (mic.ts)': { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
  'D EC+AGC': { echoCancellation: true, noiseSuppression: false, autoGainControl: true },
};
type SetName = keyof typeof SETS;

/** the field an answer line answers (as bench/speech_voices.bench.ts): intents and several answers, budget asked */
function fieldOf(text: string): string {
  const i = IN_GRAMMAR.indexOf(text);
  return i < 5 ? 'customer_name' : i < 9 ? 'intent' : i < 14 ? 'budget' : i < 18 ? 'scheduled_slot' : 'budget';
}

// ---- the lines, wideband (a browser microphone is not a phone line)
const scratch = mkdtempSync(join(tmpdir(), 'bench-site-mic-'));
function program(args: string[], text: string): Int16Array {
  const wav = join(scratch, 'line.wav');
  if (args[0] === 'espeak-ng') execFileSync('espeak-ng', [...args.slice(1), '-w', wav, text]);
  else { writeFileSync(join(scratch, 'line.txt'), text); execFileSync('text2wave', [join(scratch, 'line.txt'), '-o', wav]); }
  const w = readWav(readFileSync(wav));
  return resample(w.pcm, w.sampleRateHz, RATE);
}
const VOICES: Array<[string, (text: string) => Int16Array]> = [
  ['flite slt', (t) => renderAt(t, 'slt', RATE)],
  ['festival kal_diphone', (t) => program(['text2wave'], t)],
  ['espeak-ng en-us+f2', (t) => program(['espeak-ng', '-v', 'en-us+f2'], t)],
];
const rmsDb = (x: ArrayLike<number>, a = 0, b = x.length) => { let e = 0; for (let i = a; i < b; i++) e += x[i] * x[i]; return 10 * Math.log10(e / (b - a) / 32768 ** 2 + 1e-12); };

await loadFlite();
type Line = { text: string; speech: [number, number]; slot: [number, number] };
const lines: Line[] = [];
const parts: Int16Array[] = [new Int16Array(LEAD_S * RATE)];
let at = LEAD_S * RATE;
for (const [, say] of VOICES) for (const text of IN_GRAMMAR) {
  const pcm = say(text);
  const gain = 10 ** ((SPEECH_DBFS - rmsDb(pcm)) / 20);
  const slot = new Int16Array((BEFORE_S + AFTER_S) * RATE + pcm.length);
  slot.set(pcm.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain)))), BEFORE_S * RATE);
  lines.push({ text, speech: [at + BEFORE_S * RATE, at + BEFORE_S * RATE + pcm.length], slot: [at, at + slot.length] });
  parts.push(slot);
  at += slot.length;
}
parts.push(new Int16Array(TAIL_S * RATE));
const said = new Int16Array(at + TAIL_S * RATE);
parts.reduce((o, p) => (said.set(p, o), o + p.length), 0);
const noise = colouredNoise('pink', said.length, 7, RATE);
const withNoise = (snr: number) => Int16Array.from(said, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + 32768 * 10 ** ((SPEECH_DBFS - snr) / 20) * noise[i]))));
const files = { clean: withNoise(FLOOR_SNR_DB), noisy: withNoise(SNR_DB) };
for (const [k, pcm] of Object.entries(files)) writeFileSync(join(scratch, `${k}.wav`), writeWav({ sampleRateHz: RATE, channels: [pcm] }));
const seconds = said.length / RATE;
console.log(`${lines.length} lines (${VOICES.length} voices x ${IN_GRAMMAR.length}), ${seconds.toFixed(0)} s a file; scratch ${scratch}`);

// ---- Chromium: one browser per file and constraint set. The page reads the track's audio as it comes
// (MediaStreamTrackProcessor, 10 ms AudioData frames at the device's rate) and posts the samples back. Not an
// AudioContext as the site records: on this VM (2 vCPUs, shared) its output clock skipped under load and the capture
// lost 0.1-2.4 s of audio per file (lines cut mid-word); the frames lost 0-5 ms over 176 s. The processing measured
// here is the track's, before either.
const PAGE = `<!doctype html><script>
window.capture = async (audio, seconds, key) => {
  const mic = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, ...audio } });
  const reader = new MediaStreamTrackProcessor({ track: mic.getAudioTracks()[0], maxBufferSize: 60000 }).readable.getReader();
  const chunks = [];
  let rate = 0;
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const { value } = await reader.read();
    const f = new Float32Array(value.numberOfFrames);
    value.copyTo(f, { planeIndex: 0, format: 'f32-planar' });
    rate = value.sampleRate;
    value.close();
    chunks.push(f);
  }
  const pcm = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) for (const v of c) pcm[at++] = Math.max(-32768, Math.min(32767, Math.round(v * 32768)));
  await fetch('/upload/' + key, { method: 'POST', body: pcm });
  return { rate, settings: mic.getAudioTracks()[0].getSettings() };
};
</script>`;
const uploads = new Map<string, Int16Array>();
const server = createServer((req, res) => {
  if (req.method !== 'POST') { res.setHeader('content-type', 'text/html'); res.end(PAGE); return; }
  const body: Buffer[] = [];
  req.on('data', (b: Buffer) => body.push(b));
  req.on('end', () => { const b = Buffer.concat(body); uploads.set(req.url!.slice('/upload/'.length), new Int16Array(b.buffer, b.byteOffset, b.length / 2)); res.end(); });
}).listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

type File = keyof typeof files;
async function capture(file: File, set: SetName): Promise<{ pcm: Int16Array; settings: Record<string, unknown> }> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${join(scratch, `${file}.wav`)}`] });
  try {
    const page = await browser.newPage();
    await page.goto(origin);
    const key = `${file}-${set[0]}`;
    const { rate, settings } = await page.evaluate(([audio, s, k]) => (window as unknown as { capture: (...a: unknown[]) => Promise<{ rate: number; settings: Record<string, unknown> }> })
      .capture(audio, s, k), [SETS[set], seconds + 1, key] as const);
    return { pcm: resample(uploads.get(key)!, rate, RATE), settings: { ...settings, sampleRate: rate } };
  } finally { await browser.close(); }
}

// ---- where the file's lines are in a capture
/** 10 ms log-energy frames */
function envelope(x: Int16Array): Float64Array {
  const e = new Float64Array(Math.floor(x.length / 160));
  for (let f = 0; f < e.length; f++) { let s = 0; for (let i = f * 160; i < f * 160 + 160; i++) s += x[i] * x[i]; e[f] = Math.log10(s / 160 + 1); }
  return e;
}
/** the lag in [lo, hi] at which ref[a..b) best matches cap[a + lag..b + lag) (Pearson) */
function lagOf(ref: Float64Array, cap: Float64Array, a: number, b: number, lo: number, hi: number): number {
  let best = -Infinity, bestLag = lo;
  for (let lag = lo; lag <= hi; lag++) {
    let n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (let i = Math.max(a, -lag); i < Math.min(b, cap.length - lag); i++) { const x = ref[i], y = cap[i + lag]; n++; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y; }
    const r = (sxy - (sx * sy) / n) / Math.sqrt((sxx - (sx * sx) / n) * (syy - (sy * sy) / n));
    if (r > best) { best = r; bestLag = lag; }
  }
  return bestLag;
}
/**
 * Where each line's slot starts in a capture, to the sample: the file's start by loudness within 5 s, then each line
 * by loudness within 100 ms of the line before it (a capture that lost audio under load moves on by what it lost),
 * then by its first half second of samples within 15 ms.
 */
function slotsIn(file: Int16Array, pcm: Int16Array): number[] {
  const ref = envelope(file), cap = envelope(pcm), x = Float64Array.from(file), y = Float64Array.from(pcm);
  let lag = lagOf(ref, cap, 0, 3000, -500, 500) * 160;
  return lines.map((l) => {
    const frames = lagOf(ref, cap, Math.floor(l.slot[0] / 160), Math.floor(l.slot[1] / 160), Math.round(lag / 160) - 10, Math.round(lag / 160) + 10);
    lag = lagOf(x, y, l.speech[0], Math.min(l.speech[1], l.speech[0] + RATE / 2), frames * 160 - 240, frames * 160 + 240);
    return l.slot[0] + lag;
  });
}

// ---- the recogniser on two of the service's speech threads. The decoder's mean normalisation carries from one turn
// to the next (bench/README.md), so each recording is heard line after line on one thread, in the same order.
const threads = [0, 1].map(() => new Piscina({ filename: new URL('../workers/speech.ts', import.meta.url).href, minThreads: 1, maxThreads: 1 }));
type Outcome = 'right' | 'wrong' | 'rejected';
async function hear(thread: Piscina, pcm16k: Int16Array, line: Line, asked: boolean): Promise<Outcome> {
  const speech = trimToSpeech(resample(pcm16k, RATE, 8000), 8000).slice();
  const task: SpeechTask = { kind: 'hear', pcm: speech.buffer, sampleRateHz: 8000, ...(asked ? { hint: { asking: fieldOf(line.text), open: FIELDS } } : {}) };
  const h = (await thread.run(task, { transferList: [speech.buffer] })) as SpeechResult & { kind: 'hear' };
  return h.rejected ? 'rejected' : asRead(h.text) === asRead(line.text) ? 'right' : 'wrong';
}
/**
 * Each recording's lines (`at`: where each slot starts) on the next free thread: all with their field asked, then all
 * with nothing asked (as speech_voices: alternating would recompile the several-answers grammar, a second each time).
 */
async function hearAll(recordings: Array<{ pcm: Int16Array; at: number[] }>): Promise<Array<{ asked: Outcome[]; none: Outcome[] }>> {
  const out: Array<{ asked: Outcome[]; none: Outcome[] }> = [];
  let next = 0;
  await Promise.all(threads.map(async (thread) => {
    for (let r = next++; r < recordings.length; r = next++) {
      const { pcm, at } = recordings[r];
      out[r] = { asked: [], none: [] };
      for (const asked of [true, false]) for (const [i, l] of lines.entries()) {
        out[r][asked ? 'asked' : 'none'].push(await hear(thread, pcm.subarray(at[i], at[i] + l.slot[1] - l.slot[0]), l, asked));
      }
    }
  }));
  return out;
}

const t0 = Date.now();
const fileAt = lines.map((l) => l.slot[0]);
const baseline = hearAll([files.noisy, files.clean].map((pcm) => ({ pcm, at: fileAt }))); // while the browsers capture
const captured = await Promise.all((['noisy', 'clean'] as const).flatMap((file) => (Object.keys(SETS) as SetName[]).map(async (set) => {
  // a browser closed under the capture (another job's clean-up on this shared VM) is launched again, once
  const c = await capture(file, set).catch((err) => { console.log(`${file} ${set}: ${err.message.split('\n')[0]}; again`); return capture(file, set); });
  return { file, set, ...c, at: slotsIn(files[file], c.pcm) };
})));
server.close();
console.log(`captured ${captured.length} recordings in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

/** mean level (dBFS) of a part of each line's slot (file positions), in a recording whose slots start at `at` */
const levelOf = (pcm: Int16Array, at: number[], part: (l: Line) => [number, number]) =>
  lines.reduce((sum, l, i) => sum + rmsDb(pcm, part(l)[0] - l.slot[0] + at[i], part(l)[1] - l.slot[0] + at[i]), 0) / lines.length;
const speechOf = (l: Line) => l.speech, gapOf = (l: Line): [number, number] => [l.speech[1] + 0.2 * RATE, l.slot[1]];
console.log('what each set does to the level (speech: the lines; gap: the quiet from 0.2 s after each line to the next):');
console.table(captured.map((c) => ({ file: c.file, set: c.set,
  'EC/NS/AGC as reported': ['echoCancellation', 'noiseSuppression', 'autoGainControl'].map((k) => (c.settings[k] ? 'on' : 'off')).join('/'), 'track Hz': c.settings.sampleRate,
  'file starts at ms': (c.at[0] - fileAt[0]) / 16, 'audio lost ms': (c.at[0] - fileAt[0] - (c.at.at(-1)! - fileAt.at(-1)!)) / 16,
  'speech dB vs file': (levelOf(c.pcm, c.at, speechOf) - levelOf(files[c.file], fileAt, speechOf)).toFixed(1),
  'first line dB vs file': (rmsDb(c.pcm, c.at[0] + RATE * BEFORE_S, c.at[0] + lines[0].speech[1] - lines[0].slot[0]) - rmsDb(files[c.file], ...lines[0].speech)).toFixed(1),
  'gap dBFS (file)': `${levelOf(c.pcm, c.at, gapOf).toFixed(1)} (${levelOf(files[c.file], fileAt, gapOf).toFixed(1)})` })));

const [noisyFile, cleanFile] = await baseline;
const heard = await hearAll(captured);
const count = (s: Outcome[]) => `${s.filter((o) => o === 'right').length} / ${s.filter((o) => o === 'wrong').length} / ${s.filter((o) => o === 'rejected').length}`;
const changed = (s: Outcome[], than: Outcome[]) =>
  `+${s.filter((o, i) => o === 'right' && than[i] !== 'right').length} -${s.filter((o, i) => o !== 'right' && than[i] === 'right').length}`;
const rows = [];
for (const file of ['clean', 'noisy'] as const) for (const grammar of ['asked', 'none'] as const) {
  const own = (set: string) => heard[captured.findIndex((c) => c.file === file && c.set === set)][grammar];
  const plain = own('C all off (mic.ts)'), base = (file === 'clean' ? cleanFile : noisyFile)[grammar];
  rows.push({ audio: file === 'clean' ? 'clean' : `pink ${SNR_DB} dB SNR`, grammar: grammar === 'asked' ? 'its field asked' : 'nothing asked', 'no browser (file)': count(base),
    ...Object.fromEntries(Object.keys(SETS).map((set) => [set, `${count(own(set))} (${changed(own(set), set[0] === 'C' ? base : plain)})`])) });
}
console.log(`${lines.length} answers heard right / wrong / rejected; (+n -m): right where C (for C: the file) was not / not right where it was`);
console.table(rows);
console.log(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
await Promise.all(threads.map((t) => t.destroy()));

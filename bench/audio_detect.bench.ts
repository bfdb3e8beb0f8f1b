/**
 * In-thread cost of decode + detect per 20 ms frame (one core): mu-law 8 kHz and PCM 16 kHz, audio of both corpora
 * replayed through stepCallAudio one frame at a time (as live calls do). Also the plain mu-law LUT decode and
 * readWav against wavefile (the nearest outside implementation) on the same corpus files.
 *
 *   npm run bench -- audio_detect
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import wavefile from 'wavefile';
import { createCallAudioState, mulawDecode, readWav, stepCallAudio } from '../src/audio/index.js';
import { benchCorpora, loadManifest, loadScenarioPcm } from './audio_corpus_lib.js';

const scenarios = benchCorpora().flatMap((c) => loadManifest(c.dir));
const mulawFiles = scenarios.map((sc) => new Uint8Array(readFileSync(path.join(sc.dir, path.basename(sc.files.mulaw8k.path)))));
const mulaw = mulawFiles.map((b) => { const i = Buffer.from(b).indexOf('data'); return b.slice(i + 8); });
const pcm16 = scenarios.map((sc) => loadScenarioPcm(sc, 16000));
const settings = { turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 } as const;

function timeIt(label: string, frames: number, fn: () => void, reps: number) {
  fn(); // warm up / JIT
  let best = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
  }
  const ns = (best * 1e6) / frames;
  return { case: label, 'ns/frame': Math.round(ns), 'frames/s/core': Math.round(1e9 / ns), 'real-time calls/core': Math.round(1e9 / ns / 50) };
}

const totalMulawFrames = mulaw.reduce((n, b) => n + Math.floor(b.length / 160), 0);
const totalPcmFrames = pcm16.reduce((n, p) => n + Math.floor(p.length / 320), 0);
const out = new Int16Array(160);

const rows = [
  timeIt('mu-law LUT decode only (8 kHz)', totalMulawFrames, () => {
    for (const b of mulaw) for (let o = 0; o + 160 <= b.length; o += 160) mulawDecode(b.subarray(o, o + 160), out);
  }, 5),
  timeIt('decode + detect, mu-law 8 kHz', totalMulawFrames, () => {
    for (const b of mulaw) {
      const st = createCallAudioState({ ...settings, sampleRateHz: 8000 });
      for (let o = 0; o + 160 <= b.length; o += 160) stepCallAudio(st, mulawDecode(b.subarray(o, o + 160), out), false);
    }
  }, 5),
  timeIt('detect, PCM 16 kHz', totalPcmFrames, () => {
    for (const p of pcm16) {
      const st = createCallAudioState({ ...settings, sampleRateHz: 16000 });
      for (let o = 0; o + 320 <= p.length; o += 320) stepCallAudio(st, p.subarray(o, o + 320), false);
    }
  }, 5),
];
console.log(`Decode + detect in one thread over both corpora (${totalMulawFrames} frames of 20 ms); best of 5 passes`);
console.table(rows);

const wavRows = [
  timeIt(`readWav (ours), ${mulawFiles.length} mu-law files`, totalMulawFrames, () => { for (const f of mulawFiles) readWav(f); }, 5),
  timeIt('wavefile fromBuffer + fromMuLaw, same files', totalMulawFrames, () => {
    for (const f of mulawFiles) { const w = new wavefile.WaveFile(f); w.fromMuLaw(); w.getSamples(false, Int16Array); }
  }, 5),
];
console.log('WAV reading to PCM16 (per 20 ms of audio)');
console.table(wavRows);

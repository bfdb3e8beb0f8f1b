/**
 * Pool throughput at 1, 100, 1000, 2000 and 5000 concurrent synthetic real-time calls: every call pushes one
 * 20 ms mu-law frame every 20 ms (phases spread evenly), through AudioPool.pushMulaw.
 * Reports frame-to-decision latency (push -> promise resolved) p50/p99/max, frames that were late
 * (decision after more than one frame period, 20 ms), lost (never decided / errors), tasks and mean calls per task.
 * Inputs (speech-like corpus audio, mu-law) are built before timing.
 *
 *   npm run bench -- audio_pool            (all levels, 4 s each)
 *   tsx bench/audio_pool.bench.ts 2000 5000 --seconds 6 --threads 2
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AudioPool } from '../src/audio/index.js';
import { CORPORA, benchCorpora, loadManifest } from './audio_corpus_lib.js';

const args = process.argv.slice(2);
const flag = (name: string, d: number) => { const i = args.indexOf(`--${name}`); return i >= 0 ? Number(args[i + 1]) : d; };
const levels = args.filter((a, i) => /^\d+$/.test(a) && !args[i - 1]?.startsWith('--')).map(Number);
const LEVELS = levels.length ? levels : [1, 100, 1000, 2000, 5000];
const SECONDS = flag('seconds', 4);
const THREADS = flag('threads', 2);

// Raw mu-law bytes of every 8 kHz corpus file (skip the 58-byte-ish headers by finding 'data').
const audio: Uint8Array[] = benchCorpora([CORPORA[0]]).flatMap((c) => loadManifest(c.dir)).map((sc) => {
  const b = readFileSync(path.join(sc.dir, path.basename(sc.files.mulaw8k.path)));
  const i = b.indexOf('data');
  return new Uint8Array(b.subarray(i + 8));
});
// 2,000 distinct 20 ms frames, sliced once (no allocation per push while timing).
const FRAMES: Uint8Array[] = [];
for (let i = 0; FRAMES.length < 2000; i++) {
  const src = audio[i % audio.length];
  const k = (i * 37) % Math.floor(src.length / 160);
  FRAMES.push(src.slice(k * 160, k * 160 + 160));
}
const frameOf = (call: number, f: number): Uint8Array => FRAMES[(call * 7 + f) % FRAMES.length];

function pct(sorted: Float64Array, q: number): number { return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]; }

async function level(calls: number) {
  const pool = new AudioPool({ threads: THREADS });
  const chans = Array.from({ length: calls }, (_, i) => pool.openCall(`c${i}`, { sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 }));
  // Warm up before timing (worker module load, JIT of both threads and of the main-thread path): 1 s of frames
  // for every call, sent as fast as the pool takes them.
  for (let f = 0; f < 50; f++) await Promise.all(chans.map((c, i) => c.pushMulaw(frameOf(i, f), false)));
  const frames = Math.round((SECONDS * 1000) / 20);
  const lat = new Float64Array(calls * frames);
  let done = 0, lost = 0, late = 0;
  const t0 = performance.now() + 5;
  const tasks0 = pool.stats.tasks, items0 = pool.stats.batchItems;
  const cpu0 = process.cpuUsage();
  // Phases are spread evenly, so the n-th frame sent overall belongs to call n % calls, frame n / calls,
  // and is due at t0 + n * 20 / calls ms. Each 1 ms tick sends everything due (a late tick sends a burst).
  const total = calls * frames;
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) * calls) / 20) + 1);
      for (; sent < due; sent++) {
        const c = sent % calls, f = Math.floor(sent / calls);
        const at = performance.now();
        chans[c].pushMulaw(frameOf(c, f), false).then(() => {
          const ms = performance.now() - at;
          lat[done++] = ms;
          if (ms > 20) late++;
        }, () => { lost++; done++; });
      }
      if (sent < total) { setTimeout(tick, 1); return; }
      const wait = () => (done >= total ? resolve() : setTimeout(wait, 5));
      wait();
    };
    setTimeout(tick, 5);
  });
  const cpu = process.cpuUsage(cpu0);
  const tasks = pool.stats.tasks - tasks0, items = pool.stats.batchItems - items0;
  await pool.close();
  const sorted = lat.subarray(0, done - lost).sort();
  return {
    calls, 'frames/s': Math.round((calls * 50)), 'p50 ms': +pct(sorted, 0.5).toFixed(2), 'p99 ms': +pct(sorted, 0.99).toFixed(2),
    'max ms': +sorted[sorted.length - 1].toFixed(1), 'late >20ms': late, lost, tasks, 'calls/task': +(items / tasks).toFixed(1),
    'cpu %': Math.round(((cpu.user + cpu.system) / 1000 / (SECONDS * 1000)) * 100),
  };
}

/** Capacity: 1,000 calls each push 10 s of frames as fast as the pool takes them (no pacing). */
async function saturate(calls: number, seconds: number) {
  const pool = new AudioPool({ threads: THREADS });
  const chans = Array.from({ length: calls }, (_, i) => pool.openCall(`s${i}`, { sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 }));
  for (let f = 0; f < 25; f++) await Promise.all(chans.map((c, i) => c.pushMulaw(frameOf(i, f), false)));
  const frames = seconds * 50;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // 50 frames (1 s) per call in flight at a time, so memory stays bounded.
  for (let f = 0; f < frames; f += 50) {
    const all: Promise<unknown>[] = [];
    for (let k = f; k < f + 50; k++) for (let c = 0; c < calls; c++) all.push(chans[c].pushMulaw(frameOf(c, k), false));
    await Promise.all(all);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await pool.close();
  const fps = (calls * frames * 1000) / ms;
  return { calls, 'audio s/call': seconds, 'frames/s through pool': Math.round(fps), 'real-time call capacity': Math.round(fps / 50), 'process cpu %': Math.round(((cpu.user + cpu.system) / 1000 / ms) * 100) };
}

const rows = [];
for (const n of LEVELS) rows.push(await level(n));
console.log(`AudioPool, ${THREADS} worker threads, ${SECONDS} s of real-time frames per level (cpu % counts the whole process: main + workers)`);
console.table(rows);
console.log('Pool capacity, unpaced (frames pushed as fast as the pool decides them)');
console.table([await saturate(1000, 10)]);

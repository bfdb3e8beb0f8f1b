/**
 * Turn-taking accuracy on ../shared/corpus per scenario and in total, at 500 and 800 ms timeouts:
 * end-of-turn delay after the labelled speech end (median, p90, max), premature turn ends (inside a turn),
 * missed turns, extra turn ends, barge-in detection delay, false barge-ins from noise, and barge-ins on
 * backchannels (with how many stayed unrecovered). A pending barge-in gets the segment's label text 300 ms
 * after detection, as a streaming STT would deliver it.
 * The same table for Silero VAD (onnxruntime-node, same process) feeding the same state machines, and the
 * CPU cost per second of audio of each detector.
 *
 *   npm run bench -- audio_corpus        (8 kHz mu-law and 16 kHz PCM files; tsx bench/audio_corpus.bench.ts --rate 8000 for one)
 */
import { performance } from 'node:perf_hooks';
import { createCallAudioState, stepCallAudio } from '../src/audio/index.js';
import { loadManifest, loadScenarioPcm, runScenario, score, scoreRow, totals, type Scenario } from './audio_corpus_lib.js';
import { loadSilero, sileroFrameFlags } from './audio_silero.js';

const rateArg = process.argv.indexOf('--rate');
const RATES = (rateArg >= 0 ? [Number(process.argv[rateArg + 1])] : [8000, 16000]) as (8000 | 16000)[];
const scenarios = loadManifest();
const silero = await loadSilero();

for (const RATE of RATES) {
const pcms = new Map<Scenario, Int16Array>(scenarios.map((sc) => [sc, loadScenarioPcm(sc, RATE)]));
const audioSeconds = [...pcms.values()].reduce((s, p) => s + p.length / RATE, 0);

function table(title: string, timeoutMs: number, flagsFor?: Map<Scenario, boolean[]>) {
  // With outside flags the level detector's end-of-speech tail compensation (endTailMs) is switched off: it
  // corrects our own detector's bias, and Silero already holds speech on past the end.
  const tuning = flagsFor ? { endTailMs: 0 } : undefined;
  const scores = scenarios.map((sc) => score(sc, runScenario(sc, pcms.get(sc)!, { rate: RATE, timeoutMs, sttDelayMs: 300, flags: flagsFor?.get(sc), tuning })));
  console.log(`\n${title}: ${RATE} Hz, turn timeout ${timeoutMs} ms, interruption sensitivity 0.5`);
  console.table([...scores, totals(scores)].map(scoreRow));
}

function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

for (const t of [500, 800]) table('Ours (level detector)', t);

// CPU of our detector alone over the whole corpus (best of 3).
let oursCpu = Infinity;
for (let r = 0; r < 3; r++) {
  oursCpu = Math.min(oursCpu, cpuMs(() => {
    for (const pcm of pcms.values()) {
      const st = createCallAudioState({ sampleRateHz: RATE, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 });
      for (let o = 0; o + st.frameSamples <= pcm.length; o += st.frameSamples) stepCallAudio(st, pcm.subarray(o, o + st.frameSamples), false);
    }
  }));
}

const cpuRows: Record<string, string | number>[] = [
  { detector: 'ours (level, in-thread)', 'CPU ms per audio s': +(oursCpu / audioSeconds).toFixed(3), 'x real time': Math.round((audioSeconds * 1000) / oursCpu) },
];
if (typeof silero === 'string') {
  console.log(`\n${silero}`);
} else {
  const flags = new Map<Scenario, boolean[]>();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (const [sc, pcm] of pcms) {
    const probs = await silero.probs(pcm, RATE);
    flags.set(sc, sileroFrameFlags(probs, RATE, Math.floor(pcm.length / (RATE / 50))));
  }
  const c = process.cpuUsage(c0);
  const sCpu = (c.user + c.system) / 1000;
  console.log(`\nSilero VAD: ${silero.modelPath} (onnxruntime-node, 1 thread), ${Math.round(performance.now() - w0)} ms wall for ${audioSeconds.toFixed(1)} s of audio`);
  for (const t of [500, 800]) table('Silero VAD (same state machines, turn and barge-in logic)', t, flags);
  cpuRows.push({ detector: 'Silero VAD v4 (onnxruntime-node, 1 thread)', 'CPU ms per audio s': +(sCpu / audioSeconds).toFixed(3), 'x real time': Math.round((audioSeconds * 1000) / sCpu) });
}
console.log(`\nCPU per second of audio (${audioSeconds.toFixed(1)} s corpus at ${RATE} Hz; process CPU time)`);
console.table(cpuRows);
}

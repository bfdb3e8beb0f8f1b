/**
 * Turn-taking accuracy and CPU on the labelled corpora (../shared/corpus, and ../shared/corpus-noisy: heavy
 * stationary noise), per scenario and in total, at 8 kHz mu-law and 16 kHz PCM, at 500 and 800 ms turn timeouts.
 * Side by side, in the same run:
 *   - ours: this checkout's detector;
 *   - baseline: the detector of an earlier commit (--baseline <git ref>), scored and timed beside ours;
 *   - Silero VAD v4 (onnxruntime-web, WebAssembly) feeding the same state machines, turn and barge-in logic,
 *     where its devDependencies are installed (the run says so when they are not).
 * Scores: end-of-turn delay after the labelled speech end (median, p90, max), premature turn ends (inside a turn),
 * missed turns, extra turn ends, barge-in detection delay, false barge-ins from noise, and barge-ins on
 * backchannels (with how many stayed unrecovered). A pending barge-in gets the segment's label text 300 ms after
 * detection, as a streaming STT would deliver it. CPU: process CPU time per second of audio, best of several
 * interleaved passes for our detectors (one pass for Silero, after a warm-up).
 *
 *   npm run bench -- audio_corpus                  (AUDIO_BENCH_BASELINE=<git ref> adds the baseline)
 *   npx tsx bench/audio_corpus.bench.ts [--rate 8000|16000] [--corpus corpus|corpus-noisy] [--baseline <ref>]
 *                                       [--tuning '{"weakSigmas":2.5}']   (overrides for our detector's constants)
 */
import {
  CORPORA, OURS, arg, benchCorpora, comparedDetectors, loadManifest, loadScenarioPcm, median, quantile, runScenario, score, scoreRow, totals,
  type Detector, type Scenario, type Score,
} from './audio_corpus_lib.js';
import { loadSilero, sileroFrameFlags, type Silero } from './audio_silero.js';

const RATES = (arg('rate') ? [Number(arg('rate'))] : [8000, 16000]) as (8000 | 16000)[];
const corpora = benchCorpora(CORPORA.filter((c) => (arg('corpus') ?? c.name) === c.name));
const TIMEOUTS = [500, 800];
const { detectors, oursTuning } = await comparedDetectors();
const silero = await loadSilero();
if (typeof silero === 'string') console.log(silero);
else console.log(`Silero VAD v4: ${silero.modelPath} (${silero.runtime})`);

interface SummaryRow { corpus: string; rate: number; timeout: number; detector: string; t: Score; cpuMs: number | null }
const summary: SummaryRow[] = [];

/** Process CPU time (ms) of fn. */
function cpuMs(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/** Our detectors' CPU per second of audio: interleaved passes (so machine load hits each alike), best of 7. */
function detectorCpu(pcms: Int16Array[], rate: 8000 | 16000, audioSeconds: number): Map<string, number> {
  const reps = Math.max(1, Math.ceil(60 / audioSeconds)); // at least a minute of audio per timed pass
  const best = new Map<string, number>(detectors.map((d) => [d.name, Infinity]));
  for (let pass = 0; pass < 8; pass++) {
    for (const { name, detector } of detectors) {
      const ms = cpuMs(() => {
        for (let r = 0; r < reps; r++) {
          for (const pcm of pcms) {
            const st = detector.createCallAudioState({
              sampleRateHz: rate, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5, tuning: detector === OURS ? oursTuning : undefined,
            });
            const n = st.frameSamples;
            for (let o = 0; o + n <= pcm.length; o += n) detector.stepCallAudioWith(st, pcm.subarray(o, o + n), false);
          }
        }
      });
      if (pass > 0) best.set(name, Math.min(best.get(name)!, ms / (reps * audioSeconds))); // pass 0 warms the JIT
    }
  }
  return best;
}

async function sileroRun(s: Silero, pcms: Map<Scenario, Int16Array>, rate: 8000 | 16000, audioSeconds: number) {
  const flags = new Map<Scenario, boolean[]>();
  const ms = await (async () => {
    const c0 = process.cpuUsage();
    for (const [sc, pcm] of pcms) flags.set(sc, sileroFrameFlags(await s.probs(pcm, rate), rate, Math.floor(pcm.length / (rate / 50))));
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  })();
  return { flags, cpuPerSecond: ms / audioSeconds };
}

for (const corpus of corpora) {
  const scenarios = loadManifest(corpus.dir);
  for (const rate of RATES) {
    const pcms = new Map<Scenario, Int16Array>(scenarios.map((sc) => [sc, loadScenarioPcm(sc, rate)]));
    const audioSeconds = [...pcms.values()].reduce((n, p) => n + p.length / rate, 0);
    const cpu = detectorCpu([...pcms.values()], rate, audioSeconds);
    const sil = typeof silero === 'string' ? null : await sileroRun(silero, pcms, rate, audioSeconds);
    const runs: { name: string; detector: Detector; flags?: Map<Scenario, boolean[]>; cpuMs: number | null }[] = [
      ...detectors.map((d) => ({ ...d, cpuMs: cpu.get(d.name)! })),
      ...(sil ? [{ name: 'Silero VAD v4', detector: OURS, flags: sil.flags, cpuMs: sil.cpuPerSecond }] : []),
    ];
    for (const timeoutMs of TIMEOUTS) {
      const rows: Record<string, string | number>[] = [];
      const perDetector = runs.map((r) => {
        // With outside flags the level detector's end-of-speech tail compensation (endTailMs) is switched off: it
        // corrects our own detector's bias, and Silero already holds speech on past the end.
        const tuning = r.flags ? { endTailMs: 0 } : r.detector === OURS ? oursTuning : undefined;
        const scores = scenarios.map((sc) => score(sc, runScenario(sc, pcms.get(sc)!, {
          rate, timeoutMs, sttDelayMs: 300, flags: r.flags?.get(sc), tuning,
        }, r.detector)));
        const t = totals(scores);
        summary.push({ corpus: corpus.name, rate, timeout: timeoutMs, detector: r.name, t, cpuMs: r.cpuMs });
        return { r, scores, t };
      });
      for (let i = 0; i <= scenarios.length; i++) {
        for (const { r, scores, t } of perDetector) rows.push({ ...scoreRow(i < scenarios.length ? scores[i] : t), detector: r.name });
      }
      console.log(`\n${corpus.name}: ${rate === 8000 ? '8 kHz mu-law' : '16 kHz PCM'}, turn timeout ${timeoutMs} ms, interruption sensitivity 0.5 (${audioSeconds.toFixed(1)} s of audio)`);
      console.table(rows.map(({ scenario, detector, ...rest }) => ({ scenario, detector, ...rest })));
    }
  }
}

const f = (x: number) => (Number.isNaN(x) ? '-' : Math.round(x));
console.log('\nSummary: totals per corpus, rate, timeout and detector; CPU = process CPU ms per second of audio (detection only)');
console.table(summary.map(({ corpus, rate, timeout, detector, t, cpuMs }) => {
  const base = summary.find((s) => s.corpus === corpus && s.rate === rate && s.timeout === timeout && s.detector.startsWith('baseline'));
  return {
    corpus, rate, 'timeout ms': timeout, detector,
    'turns found': `${t.turns - t.missed}/${t.turns}`, premature: t.premature, 'extra EOT': t.spuriousEot,
    'EOT med': f(median(t.eotDelays)), 'EOT p90': f(quantile(t.eotDelays, 0.9)),
    'BI delay max': t.bargeInDelays.length ? Math.max(...t.bargeInDelays) : '-', 'missed BI': t.missedBargeIns,
    'false BI': t.falseBargeInNoise, 'BC unrec': `${t.backchannelUnrecovered}/${t.backchannelBargeIns}`,
    'CPU ms/s': cpuMs === null ? '-' : +cpuMs.toFixed(3),
    'CPU vs baseline': base?.cpuMs && cpuMs !== null && detector.startsWith('ours') ? `${(cpuMs / base.cpuMs).toFixed(2)}x` : '',
  };
}));
if (typeof silero === 'string') console.log(silero);

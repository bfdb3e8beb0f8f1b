/**
 * Held-out noise check: the detector was developed on ../shared/corpus-noisy; this mixes the first corpus's
 * cleanest scenarios (no noise or 20-35 dB SNR: d01, d02, d07, d08, d12, with their labels) with generated white,
 * pink and brown noise at 5 and 0 dB SNR (the corpus's definition: active speech power over noise power, 16 kHz),
 * then scores them at 8 kHz mu-law and 16 kHz, 800 ms timeout, beside the baseline detector and Silero when present.
 * Second table: background alone (-40 dBFS) that steps (or ramps over 2 s) up by 2-12 dB after 3 s: how many turns
 * each detector opens on it, in the steady part and after the change (none is right; the floor needs up to 2.4 s
 * to catch up with a change).
 *
 *   npm run bench -- audio_noise_mix              (AUDIO_BENCH_BASELINE=<git ref> adds the baseline)
 *   npx tsx bench/audio_noise_mix.bench.ts [--baseline <ref>] [--snr 5,0] [--tuning '{"weakSigmas":2.5}']
 */
import { mulawDecode, mulawEncode, resample } from '../src/audio/index.js';
import {
  CORPUS_DIR, OURS, arg, benchCorpora, comparedDetectors, loadManifest, loadScenarioPcm, median, quantile, runScenario, score, totals,
  type Detector, type Scenario,
} from './audio_corpus_lib.js';
import { colouredNoise, type NoiseColour } from './audio_noise.js';
import { loadSilero, sileroFrameFlags } from './audio_silero.js';

const SNRS = (arg('snr') ?? '5,0').split(',').map(Number);
const COLOURS: NoiseColour[] = ['white', 'pink', 'brown'];
const { detectors, oursTuning } = await comparedDetectors();
const silero = await loadSilero();
if (typeof silero === 'string') console.log(silero);

// it mixes named scenarios of the shared corpus: the generated one cannot stand in
benchCorpora([{ name: 'corpus', dir: CORPUS_DIR }], { generated: false });
const clean = loadManifest(CORPUS_DIR).filter((sc) => /^d0[1278]_|^d12_/.test(sc.name));
const to8k = (pcm16: Int16Array) => mulawDecode(mulawEncode(resample(pcm16, 16000, 8000)));

function mix(sc: Scenario, colour: NoiseColour, snrDb: number, seed: number): Int16Array {
  const s = loadScenarioPcm(sc, 16000);
  let ps = 0, n = 0;
  for (const g of sc.segments) for (let i = g.startMs * 16; i < g.endMs * 16; i++) { ps += (s[i] / 32768) ** 2; n++; }
  const noise = colouredNoise(colour, s.length, seed);
  const g = 32768 * Math.sqrt(ps / n / 10 ** (snrDb / 10));
  return Int16Array.from(s, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + noise[i] * g))));
}

const f = (x: number) => (Number.isNaN(x) ? '-' : Math.round(x));
const rows: Record<string, string | number>[] = [];
for (const snr of SNRS) {
  for (const colour of COLOURS) {
    for (const rate of [8000, 16000] as const) {
      const pcms = clean.map((sc, k) => { const m = mix(sc, colour, snr, 1000 + k); return rate === 16000 ? m : to8k(m); });
      const runs: { name: string; detector: Detector; flags?: boolean[][] }[] = [...detectors];
      if (typeof silero !== 'string') {
        const flags: boolean[][] = [];
        for (const pcm of pcms) flags.push(sileroFrameFlags(await silero.probs(pcm, rate), rate, Math.floor(pcm.length / (rate / 50))));
        runs.push({ name: 'Silero VAD v4', detector: OURS, flags });
      }
      for (const r of runs) {
        const t = totals(clean.map((sc, k) => score(sc, runScenario(sc, pcms[k], {
          rate, timeoutMs: 800, sttDelayMs: 300, flags: r.flags?.[k], tuning: r.flags ? { endTailMs: 0 } : r.detector === OURS ? oursTuning : undefined,
        }, r.detector))));
        rows.push({
          'SNR dB': snr, noise: colour, rate, detector: r.name, 'turns found': `${t.turns - t.missed}/${t.turns}`,
          premature: t.premature, 'extra EOT': t.spuriousEot, 'EOT med': f(median(t.eotDelays)), 'EOT p90': f(quantile(t.eotDelays, 0.9)),
          'BI delay max': t.bargeInDelays.length ? Math.max(...t.bargeInDelays) : '-', 'false BI': t.falseBargeInNoise,
          'BC unrec': `${t.backchannelUnrecovered}/${t.backchannelBargeIns}`,
        });
      }
    }
  }
}
console.log(`\nHeld-out: ${clean.map((sc) => sc.name).join(', ')} (${clean.reduce((n, sc) => n + sc.turns.length, 0)} turns) in generated noise; 800 ms timeout`);
console.table(rows);

// Background only, 9 s at -40 dBFS: steady for 3 s, then a step (or a 2 s ramp) of +D dB.
const steps: Record<string, string | number>[] = [];
for (const shape of ['step', 'ramp'] as const) {
  for (const d of [2, 4, 6, 9, 12]) {
    for (const colour of ['white', 'pink'] as const) {
      const noise = colouredNoise(colour, 16000 * 9, 3);
      const pcm16 = Int16Array.from(noise, (v, i) => {
        const s = i / 16000;
        const db = s < 3 ? 0 : shape === 'step' ? d : d * Math.min(1, (s - 3) / 2);
        return Math.round(32768 * 0.01 * 10 ** (db / 20) * v);
      });
      const row: Record<string, string | number> = { background: `${shape} +${d} dB`, noise: colour };
      for (const rate of [8000, 16000] as const) {
        const pcm = rate === 16000 ? pcm16 : to8k(pcm16);
        for (const { name, detector } of detectors) {
          const st = detector.createCallAudioState({
            sampleRateHz: rate, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5, tuning: detector === OURS ? oursTuning : undefined,
          });
          let steady = 0, changed = 0;
          for (let o = 0; o + st.frameSamples <= pcm.length; o += st.frameSamples) {
            for (const e of detector.stepCallAudioWith(st, pcm.subarray(o, o + st.frameSamples), false)) {
              if (e.type === 'TurnEnded') { if (e.speechStartMs < 3000) steady++; else changed++; }
            }
          }
          row[`${name} @ ${rate}`] = `${steady} + ${changed}`;
        }
      }
      steps.push(row);
    }
  }
}
console.log('\nTurns opened on background alone: during the steady first 3 s + after the change (0 + 0 is right)');
console.table(steps);

/**
 * Scores end-of-turn and barge-in decisions on the labelled corpora (../shared/corpus and ../shared/corpus-noisy
 * beside the repo; same manifest format). Shared by the audio benches and test/audio/corpus_scenarios.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as callAudio from '../src/audio/call_audio.js';
import { readWav, type AudioEvent, type CallAudioSettings, type CallAudioState } from '../src/audio/index.js';
import { classifyUtterance } from '../src/session/utterance.js';
import { ensureSimCorpus } from './sim_corpus.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the labelled corpora are: VOICECALL_CORPUS_DIR (a folder holding corpus/ and corpus-noisy/), else ../shared. */
export const CORPUS_ROOT = process.env.VOICECALL_CORPUS_DIR ? path.resolve(process.env.VOICECALL_CORPUS_DIR) : path.resolve(REPO_ROOT, '..', 'shared');
export const CORPUS_DIR = path.join(CORPUS_ROOT, 'corpus');
/** Heavy stationary noise (5-8 dB SNR), kept apart so readers of the first manifest see it unchanged. */
export const NOISY_CORPUS_DIR = path.join(CORPUS_ROOT, 'corpus-noisy');
export const CORPORA = [
  { name: 'corpus', dir: CORPUS_DIR },
  { name: 'corpus-noisy', dir: NOISY_CORPUS_DIR },
] as const;
/** The generated stand-in (bench/sim_corpus.ts), used when the shared corpora are not beside the repository. */
export const SIM_CORPUS = { name: 'corpus-sim', dir: path.join(REPO_ROOT, 'bench', 'out', 'corpus-sim') } as const;

export type Corpus = { name: string; dir: string };
const present = (c: Corpus) => existsSync(path.join(c.dir, 'manifest.json'));

/**
 * The corpora a bench runs on: those of `wanted` that are present. When none is: with VOICECALL_CORPUS_DIR unset
 * (a fresh clone has no ../shared) the generated SimVoice corpus, said loudly; with it set, or when the caller
 * needs the real corpora (`generated: false`), the bench says where it looked and exits 2. A bench without its data
 * fails: it never reports "0 frames … ok".
 */
export function benchCorpora(wanted: readonly Corpus[] = CORPORA, opts: { generated?: boolean } = {}): Corpus[] {
  const found = wanted.filter(present);
  if (found.length) return found;
  const looked = wanted.map((c) => c.dir).join(', ');
  if (opts.generated !== false && !process.env.VOICECALL_CORPUS_DIR) {
    console.log(`The labelled corpora are not here (${looked}): running on the generated SimVoice corpus (bench/sim_corpus.ts) in ${SIM_CORPUS.dir}.\n`
      + 'It checks the machinery, not speech: the figures in bench/README.md come from the shared corpora (VOICECALL_CORPUS_DIR names their folder).');
    ensureSimCorpus(SIM_CORPUS.dir);
    return [SIM_CORPUS];
  }
  console.error(`This bench needs its labelled audio and found none: looked for manifest.json in ${looked}.\n`
    + 'Set VOICECALL_CORPUS_DIR to the folder holding corpus/ and corpus-noisy/'
    + `${opts.generated === false ? '' : ', or unset it to run on the generated SimVoice corpus'}.`);
  process.exit(2);
}

interface Seg { index: number; kind: 'speech' | 'backchannel'; startMs: number; endMs: number; text: string; turnIndex: number | null }
interface Turn { index: number; startMs: number; endMs: number; text: string; bargeIn: boolean }
interface Agent { startMs: number; endMs: number; callerSpeech: { kind: 'backchannel' | 'barge_in'; startMs: number; endMs: number; text: string }[] }
export interface Scenario {
  /** Folder of the manifest the scenario came from. */
  dir: string;
  name: string; durationMs: number; tags: string[];
  files: { mulaw8k: { path: string }; pcm16k: { path: string } };
  segments: Seg[]; turns: Turn[]; agentSpeaking: Agent[];
}

export function loadManifest(dir: string = CORPUS_DIR): Scenario[] {
  const scenarios = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')).scenarios as Omit<Scenario, 'dir'>[];
  return scenarios.map((sc) => ({ ...sc, dir }));
}

export function loadScenarioPcm(sc: Scenario, rate: 8000 | 16000): Int16Array {
  const file = rate === 8000 ? sc.files.mulaw8k.path : sc.files.pcm16k.path;
  return readWav(readFileSync(path.join(sc.dir, path.basename(file)))).pcm;
}

/** Real human speech no grammar holds: the LibriVox book sentences of the turn-taking corpora present, each turn at 8 kHz. */
export function humanBookTurns(): Array<{ scenario: string; pcm: Int16Array }> {
  return CORPORA.filter((c) => existsSync(path.join(c.dir, 'manifest.json'))).flatMap((c) => loadManifest(c.dir))
    .filter((s) => s.tags.includes('human_speech')).flatMap((s) => {
      const pcm = loadScenarioPcm(s, 8000);
      return s.turns.map((t) => ({ scenario: s.name, pcm: pcm.subarray(t.startMs * 8, t.endMs * 8) }));
    });
}

export function agentSpeakingAt(sc: Scenario, ms: number): boolean {
  return sc.agentSpeaking.some((a) => ms >= a.startMs && ms < a.endMs);
}


/**
 * The per-call detector functions a run needs: this checkout's, or an earlier commit's (loadDetectorAt), and how
 * a pending barge-in is settled from its words (the call session judges them for this checkout's detector).
 */
export type Detector = Pick<typeof callAudio, 'createCallAudioState' | 'stepCallAudioWith'> & {
  resolveWithWords(state: CallAudioState, text: string): AudioEvent[];
};
export const OURS: Detector = { ...callAudio, resolveWithWords: (state, text) => callAudio.resolveBargeIn(state, classifyUtterance(text)) };

/**
 * The detector as it was at a git commit of this repository (src/audio extracted into a temporary folder and
 * imported), so a bench can score and time an earlier detector in the same run as the current one.
 */
export async function loadDetectorAt(ref: string): Promise<Detector> {
  const dir = mkdtempSync(path.join(tmpdir(), 'audio-baseline-'));
  const tar = execFileSync('git', ['-C', REPO_ROOT, 'archive', ref, 'src/audio'], { maxBuffer: 64 << 20 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  const mod = await import(pathToFileURL(path.join(dir, 'src', 'audio', 'call_audio.ts')).href);
  // before the session judged the words, the detector took the transcript itself
  return { ...mod, resolveWithWords: (state: CallAudioState, text: string) => mod.resolveBargeIn(state, text) } as Detector;
}

/** `--name value` from the command line. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 2 ? process.argv[i + 1] : undefined;
}

/**
 * The detectors a corpus bench compares side by side: ours (with `--tuning` JSON applied by the caller), and the
 * detector at `--baseline` / AUDIO_BENCH_BASELINE (a git ref) when one is given.
 */
export async function comparedDetectors(): Promise<{ detectors: { name: string; detector: Detector }[]; oursTuning?: Record<string, number> }> {
  const baselineRef = arg('baseline') ?? process.env.AUDIO_BENCH_BASELINE;
  const oursTuning = arg('tuning') ? JSON.parse(arg('tuning')!) as Record<string, number> : undefined;
  const detectors = [{ name: oursTuning ? `ours ${JSON.stringify(oursTuning)}` : 'ours', detector: OURS }];
  if (baselineRef) detectors.push({ name: `baseline ${baselineRef}`, detector: await loadDetectorAt(baselineRef) });
  return { detectors, oursTuning };
}

export interface RunOptions {
  rate: 8000 | 16000;
  timeoutMs: number;
  sensitivity?: number;
  /** Simulated STT: resolve a pending barge-in with the label text this long after detection (ms); off if undefined. */
  sttDelayMs?: number;
  tuning?: CallAudioSettings['tuning'];
  /** Per-frame speech decisions from another VAD (same state machines, turn and barge-in logic on top). */
  flags?: boolean[];
}

export function runScenario(sc: Scenario, pcm: Int16Array, o: RunOptions, detector: Detector = OURS): AudioEvent[] {
  const { createCallAudioState, stepCallAudioWith, resolveWithWords } = detector;
  const state = createCallAudioState({
    sampleRateHz: o.rate, turnDetectionTimeoutMs: o.timeoutMs, interruptionSensitivity: o.sensitivity ?? 0.5, tuning: o.tuning,
  });
  const n = state.frameSamples;
  const frames = Math.floor(pcm.length / n);
  const flags = o.flags;
  const events: AudioEvent[] = [];
  let resolveAtMs = Infinity;
  let resolveText = '';
  for (let f = 0; f < frames; f++) {
    const ms = f * 20;
    if (ms >= resolveAtMs) { events.push(...resolveWithWords(state, resolveText)); resolveAtMs = Infinity; }
    const ev = stepCallAudioWith(state, pcm.subarray(f * n, (f + 1) * n), agentSpeakingAt(sc, ms), flags ? [flags[f]] : undefined);
    for (const e of ev) {
      events.push(e);
      if (e.type === 'BargeInDetected' && o.sttDelayMs !== undefined) {
        const seg = sc.segments.find((s) => e.atMs >= s.startMs - 100 && e.atMs <= s.endMs + 300);
        resolveAtMs = e.atMs + o.sttDelayMs;
        resolveText = seg ? seg.text : '';
      }
    }
  }
  return events;
}

export interface Score {
  name: string; turns: number; eotDelays: number[]; premature: number; missed: number; spuriousEot: number;
  bargeIns: number; bargeInDelays: number[]; missedBargeIns: number;
  falseBargeInNoise: number; backchannelBargeIns: number; backchannelUnrecovered: number;
}

export function score(sc: Scenario, events: AudioEvent[]): Score {
  const s: Score = {
    name: sc.name, turns: sc.turns.length, eotDelays: [], premature: 0, missed: 0, spuriousEot: 0,
    bargeIns: 0, bargeInDelays: [], missedBargeIns: 0, falseBargeInNoise: 0, backchannelBargeIns: 0, backchannelUnrecovered: 0,
  };
  const matched = new Set<number>();
  for (const e of events) {
    if (e.type !== 'TurnEnded') continue;
    if (sc.turns.some((t) => e.atMs > t.startMs && e.atMs < t.endMs)) { s.premature++; continue; }
    // The vocalisation just before the decision: a turn end scores against it, anything else is spurious.
    const prev = [...sc.segments].reverse().find((g) => g.endMs <= e.atMs);
    const turn = prev && prev.kind === 'speech' ? sc.turns[prev.turnIndex!] : undefined;
    if (!turn || matched.has(turn.index)) { s.spuriousEot++; continue; }
    matched.add(turn.index);
    s.eotDelays.push(e.atMs - turn.endMs);
  }
  s.missed = sc.turns.length - matched.size;
  const bis = events.filter((e) => e.type === 'BargeInDetected');
  const used = new Set<AudioEvent>();
  for (const a of sc.agentSpeaking) {
    for (const c of a.callerSpeech) {
      if (c.kind !== 'barge_in') continue;
      s.bargeIns++;
      const hit = bis.find((e) => e.atMs >= c.startMs && e.atMs <= c.endMs);
      if (hit) { used.add(hit); s.bargeInDelays.push(hit.atMs - c.startMs); } else s.missedBargeIns++;
    }
  }
  for (const e of bis) {
    if (used.has(e)) continue;
    const bc = sc.segments.find((g) => g.kind === 'backchannel' && e.atMs >= g.startMs && e.atMs <= g.endMs + 200);
    if (!bc) { s.falseBargeInNoise++; continue; }
    s.backchannelBargeIns++;
    const recovered = events.some((r) => r.type === 'InterruptionRecovered' && r.atMs >= e.atMs && r.atMs <= bc.endMs + 1500);
    if (!recovered) s.backchannelUnrecovered++;
  }
  return s;
}

export function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.floor(q * a.length))];
}
export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? a[m] : (a[m - 1] + a[m]) / 2;
}

export function totals(scores: Score[]): Score {
  const t = score({ dir: '', name: 'TOTAL', durationMs: 0, tags: [], files: null as never, segments: [], turns: [], agentSpeaking: [] }, []);
  for (const s of scores) {
    t.turns += s.turns; t.eotDelays.push(...s.eotDelays); t.premature += s.premature; t.missed += s.missed;
    t.spuriousEot += s.spuriousEot; t.bargeIns += s.bargeIns; t.bargeInDelays.push(...s.bargeInDelays);
    t.missedBargeIns += s.missedBargeIns; t.falseBargeInNoise += s.falseBargeInNoise;
    t.backchannelBargeIns += s.backchannelBargeIns; t.backchannelUnrecovered += s.backchannelUnrecovered;
  }
  return t;
}

export function scoreRow(s: Score): Record<string, string | number> {
  const f = (x: number) => (Number.isNaN(x) ? '-' : Math.round(x));
  return {
    scenario: s.name, turns: s.turns, 'EOT med': f(median(s.eotDelays)), 'EOT p90': f(quantile(s.eotDelays, 0.9)),
    'EOT max': s.eotDelays.length ? Math.max(...s.eotDelays) : '-',
    premature: s.premature, missed: s.missed, 'extra EOT': s.spuriousEot,
    'BI delay': s.bargeInDelays.length ? s.bargeInDelays.join('/') : (s.bargeIns ? 'MISSED' : '-'),
    'false BI': s.falseBargeInNoise, 'BC BI (unrec)': `${s.backchannelBargeIns} (${s.backchannelUnrecovered})`,
  };
}

/**
 * A small labelled corpus generated from the offline voice (SimVoice: text as speech-like tones), in the shared
 * corpora's manifest format, so the audio benches run from a fresh clone: six callers, 14 turns, clean, quiet, in
 * white noise, with pauses inside a turn shorter than any turn timeout. Deterministic (fixed seeds), written to
 * bench/out/corpus-sim (not committed: it is rebuilt from this file in about a second). It is not speech: turn
 * decisions on it check the machinery, and the figures in bench/README.md come from the shared corpora.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import wavefile from 'wavefile';
import { encodeSimVoice } from '../src/simvoice/index.js';
import { mulawEncode } from '../src/audio/g711.js';

interface Part { text: string; pauseBeforeMs: number; newTurn: boolean }
interface Spec { name: string; tags: string[]; leadMs: number; gain: number; noiseRms: number; seed: number; parts: Part[] }

const turn = (text: string, pauseBeforeMs: number): Part => ({ text, pauseBeforeMs, newTurn: true });
/** a second phrase of the same turn after a short pause (the detector must not end the turn there) */
const more = (text: string, pauseBeforeMs: number): Part => ({ text, pauseBeforeMs, newTurn: false });

const SPECS: Spec[] = [
  { name: 's01_clean', tags: ['clean', 'generated'], leadMs: 600, gain: 1, noiseRms: 0, seed: 1,
    parts: [turn('hello who is this', 0), turn('yes i am looking for a flat', 2500), turn('around fifty lakh', 2500)] },
  { name: 's02_pause_in_turn', tags: ['clean', 'pause_in_turn', 'generated'], leadMs: 400, gain: 1, noiseRms: 0, seed: 2,
    parts: [turn('my name is asha', 0), more('asha rao', 350), turn('saturday morning works', 2500), more('after ten', 300)] },
  { name: 's03_quiet', tags: ['quiet', 'generated'], leadMs: 500, gain: 0.3, noiseRms: 0, seed: 3,
    parts: [turn('hello', 0), turn('not right now thanks', 2500)] },
  { name: 's04_white_noise', tags: ['noise', 'white', 'generated'], leadMs: 800, gain: 1, noiseRms: 120, seed: 4,
    parts: [turn('yes speaking', 0), turn('two bedrooms please', 2500), more('near the station', 300)] },
  { name: 's05_starts_at_t0', tags: ['clean', 'starts_at_t0', 'generated'], leadMs: 0, gain: 1, noiseRms: 0, seed: 5,
    parts: [turn('hi there', 0), turn('call me tomorrow', 2500)] },
  { name: 's06_long_turn', tags: ['clean', 'long_turn', 'generated'], leadMs: 500, gain: 1, noiseRms: 0, seed: 6,
    parts: [turn('i have been looking for a three bedroom flat close to my office for a few months now', 0),
      turn('budget is one crore', 2500), turn('thank you bye', 2500)] },
];

const TRAILING_MS = 1500;

/** xorshift32, so the noise is the same on every machine */
function noiseSource(seed: number) {
  let s = seed * 2654435761 >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >> 17; s ^= s << 5; s >>>= 0; return s / 0x1_0000_0000 - 0.5; };
}

function render(spec: Spec, rate: 8000 | 16000) {
  const at = (ms: number) => Math.round((ms * rate) / 1000);
  const pieces: Array<{ startMs: number; pcm: Int16Array; part: Part }> = [];
  let ms = spec.leadMs;
  for (const part of spec.parts) {
    ms += part.pauseBeforeMs;
    const pcm = encodeSimVoice(part.text, { sampleRateHz: rate, voice: 'callee' });
    pieces.push({ startMs: ms, pcm, part });
    ms += (pcm.length * 1000) / rate;
  }
  const durationMs = Math.ceil(ms + TRAILING_MS);
  const out = new Int16Array(at(durationMs));
  const noise = noiseSource(spec.seed);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(noise() * 3.46 * spec.noiseRms); // uniform: rms = range/sqrt(12)
  for (const p of pieces) {
    const o = at(p.startMs);
    for (let i = 0; i < p.pcm.length && o + i < out.length; i++) out[o + i] = Math.max(-32768, Math.min(32767, out[o + i] + p.pcm[i] * spec.gain));
  }
  return { out, durationMs, pieces: pieces.map((p) => ({ startMs: Math.round(p.startMs), endMs: Math.round(p.startMs + (p.pcm.length * 1000) / rate), part: p.part })) };
}

/** Writes the corpus (manifest.json and two WAVs per scenario) into `dir` unless it is there; returns `dir`. */
export function ensureSimCorpus(dir: string): string {
  if (existsSync(path.join(dir, 'manifest.json'))) return dir;
  mkdirSync(dir, { recursive: true });
  const scenarios = SPECS.map((spec) => {
    const a8 = render(spec, 8000);
    const a16 = render(spec, 16000);
    const mulaw = new wavefile.WaveFile();
    mulaw.fromScratch(1, 8000, '8m', mulawEncode(a8.out));
    writeFileSync(path.join(dir, `${spec.name}.wav`), mulaw.toBuffer());
    const pcm = new wavefile.WaveFile();
    pcm.fromScratch(1, 16000, '16', a16.out);
    writeFileSync(path.join(dir, `${spec.name}.16k.wav`), pcm.toBuffer());
    const segments: Array<{ index: number; kind: 'speech'; startMs: number; endMs: number; text: string; turnIndex: number }> = [];
    const turns: Array<{ index: number; startMs: number; endMs: number; text: string; bargeIn: false }> = [];
    for (const p of a8.pieces) {
      if (p.part.newTurn) turns.push({ index: turns.length, startMs: p.startMs, endMs: p.endMs, text: p.part.text, bargeIn: false });
      else { const last = turns[turns.length - 1]; last.endMs = p.endMs; last.text += ` ${p.part.text}`; }
      segments.push({ index: segments.length, kind: 'speech', startMs: p.startMs, endMs: p.endMs, text: p.part.text, turnIndex: turns.length - 1 });
    }
    return { name: spec.name, description: 'generated by bench/sim_corpus.ts (SimVoice tones, not speech)', tags: spec.tags, durationMs: a8.durationMs,
      files: { mulaw8k: { path: `${spec.name}.wav` }, pcm16k: { path: `${spec.name}.16k.wav` } }, segments, turns, agentSpeaking: [] };
  });
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ title: 'SimVoice corpus (generated)', formatVersion: 1, generator: 'bench/sim_corpus.ts', scenarios }, null, 1));
  return dir;
}

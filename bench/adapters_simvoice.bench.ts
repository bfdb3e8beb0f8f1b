/**
 * SimVoice cost per second of audio, since every simulated call runs it on both sides (callee TTS + agent
 * STT): encode (text -> PCM) and decode (PCM -> text, fed in 20 ms frames), 8 kHz.
 *   npx tsx bench/adapters_simvoice.bench.ts
 */
import { performance } from 'node:perf_hooks';
import { encodeSimVoice, SimVoiceDecoder, simVoiceDurationMs } from '../src/simvoice/index.js';

const TEXT = 'Hello, this is an automated assistant calling on behalf of our team. May I have your name, please?';
const ROUNDS = 40;
const audioSeconds = simVoiceDurationMs(TEXT) / 1000;
const pcm = encodeSimVoice(TEXT);
const frames: Int16Array[] = [];
for (let i = 0; i < pcm.length; i += 160) frames.push(pcm.slice(i, i + 160));

function measure(fn: () => void): number {
  for (let i = 0; i < 3; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) fn();
  return (performance.now() - t0) / ROUNDS;
}

const encodeMs = measure(() => { encodeSimVoice(TEXT); });
const decodeMs = measure(() => {
  const d = new SimVoiceDecoder(8000);
  for (const f of frames) d.write(f);
  if (d.finish().text !== TEXT) throw new Error('decode mismatch');
});

const rows = [
  ['encode', encodeMs, (encodeMs / audioSeconds)],
  ['decode (20 ms frames)', decodeMs, (decodeMs / audioSeconds)],
] as const;
console.log(`SimVoice at 8 kHz, ${audioSeconds.toFixed(2)} s utterance, ${ROUNDS} rounds`);
console.log('| step | ms per utterance | ms CPU per s of audio | x real time | µs per 20 ms frame |');
console.log('|---|---|---|---|---|');
for (const [name, ms, perSec] of rows) {
  console.log(`| ${name} | ${ms.toFixed(3)} | ${perSec.toFixed(3)} | ${(1000 / perSec).toFixed(0)} | ${(perSec * 20).toFixed(1)} |`);
}

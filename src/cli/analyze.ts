/**
 * npm run analyze -- <file.wav> [--timeout-ms N] [--agent-speaking a-b,...] [--sensitivity 0..1] [--max-turn-ms N]
 *
 * Runs the call audio detector over any WAV (mono or stereo, any supported format and rate) and prints
 * one JSON line per event on stdout; a summary (duration, speech segments, the background's floor and the level
 * above which a frame counted as weak speech) goes to stderr.
 * Exit codes: 0 ok, 2 unreadable audio (AudioError code printed), 64 usage.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { analyzePcm } from '../audio/analyze.js';
import { AudioError } from '../audio/errors.js';
import { readWav } from '../audio/wav.js';

const USAGE = 'usage: npm run analyze -- <file.wav> [--timeout-ms N] [--agent-speaking a-b,...] [--sensitivity 0..1] [--max-turn-ms N]';

function fail(msg: string, code: number): never {
  process.stderr.write(`${msg}\n`);
  process.exit(code);
}

function num(name: string, v: string | undefined, dflt: number, min: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) fail(`--${name} must be a number in ${min}..${max}, got "${v}"\n${USAGE}`, 64);
  return n;
}

/** "1000-2500,4000-5200" -> intervals in ms. */
function intervals(v: string | undefined): { startMs: number; endMs: number }[] {
  if (!v) return [];
  return v.split(',').map((part) => {
    const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(part);
    if (!m || Number(m[2]) < Number(m[1])) fail(`--agent-speaking: "${part}" is not startMs-endMs\n${USAGE}`, 64);
    return { startMs: Number(m[1]), endMs: Number(m[2]) };
  });
}

function main(argv: string[]): void {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true,
      options: {
        'timeout-ms': { type: 'string' }, 'agent-speaking': { type: 'string' },
        sensitivity: { type: 'string' }, 'max-turn-ms': { type: 'string' }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 64);
  }
  const { values, positionals } = parsed;
  if (values.help) { process.stdout.write(`${USAGE}\n`); return; }
  if (positionals.length !== 1) fail(USAGE, 64);
  const file = positionals[0];
  const options = {
    turnDetectionTimeoutMs: num('timeout-ms', values['timeout-ms'], 800, 20, 60_000),
    interruptionSensitivity: num('sensitivity', values.sensitivity, 0.5, 0, 1),
    maxTurnMs: num('max-turn-ms', values['max-turn-ms'], 30_000, 100, 3_600_000),
    agentSpeaking: intervals(values['agent-speaking']),
  };
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`, 2);
  }
  try {
    const wav = readWav(bytes);
    const res = analyzePcm(wav.pcm, wav.sampleRateHz, options);
    for (const e of res.events) process.stdout.write(`${JSON.stringify(e)}\n`);
    process.stderr.write(`${JSON.stringify({
      file, sampleRateHz: wav.sampleRateHz, channels: wav.channels, analyzedAtHz: res.sampleRateHz, durationMs: res.durationMs,
      segments: res.segments, background: res.background,
    })}\n`);
  } catch (err) {
    if (err instanceof AudioError) fail(`${file}: ${err.code}: ${err.message}`, 2);
    throw err;
  }
}

main(process.argv.slice(2));

import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeWav } from '../../src/audio/index.js';
import { noisyCall, utterance } from './helpers/synth.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = (args: string[]) => run(process.execPath, ['--import', 'tsx', path.join(root, 'src/cli/analyze.ts'), ...args], { cwd: root });

t.test('prints one JSON event per line for a stereo 16 kHz file', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'analyze-'));
  const n = 16000 * 3;
  const caller = new Int16Array(n);
  for (let i = 8000; i < 24000; i++) caller[i] = Math.round(8000 * Math.sin((i * 2 * Math.PI * 300) / 16000));
  const file = path.join(dir, 'call.wav');
  writeFileSync(file, writeWav({ sampleRateHz: 16000, channels: [caller, new Int16Array(n)] }));
  const { stdout, stderr } = await cli([file, '--timeout-ms', '500', '--agent-speaking', '0-1500']);
  const events = stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.same(events.map((e) => e.type), ['SpeechStarted', 'BargeInDetected', 'SpeechStopped', 'TurnEnded']);
  t.equal(JSON.parse(stderr.trim().split('\n').pop()!).segments.length, 1);
});

t.test('unreadable audio exits 2 with the error code; bad flags exit 64', async (t) => {
  const bad = await cli([path.join(root, 'package.json')]).catch((e) => e);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /wav_malformed/);
  const usage = await cli(['x.wav', '--timeout-ms', 'soon']).catch((e) => e);
  t.equal(usage.code, 64);
});

t.test('heavy noise: one turn end per turn, and the measured background in the summary', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'analyze-'));
  const { pcm, segments } = noisyCall([800, utterance(8, 1), 500, utterance(6, 2), 1800, utterance(7, 3), 1500], 'white', 5, 7);
  const file = path.join(dir, 'noisy.wav');
  writeFileSync(file, writeWav({ sampleRateHz: 16000, channels: [pcm] }));
  const { stdout, stderr } = await cli([file]);
  const ends = stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'TurnEnded');
  t.equal(ends.length, 2, 'one turn end per turn');
  t.ok(ends[0].atMs > segments[1].endMs && ends[0].atMs < segments[2].startMs, 'the first after the pause and the turn');
  t.ok(ends[1]?.atMs > segments[2].endMs, 'the second after the last turn');
  const { background } = JSON.parse(stderr.trim().split('\n').pop()!);
  t.ok(background.floorDb < -20 && background.weakSpeechAboveDb > background.floorDb, JSON.stringify(background));
});

/**
 * The offline ears on turns as a call gives them: the speech-dev files whole (the quiet around the speech too) in
 * 20 ms frames at real time, the call's detector deciding speech start, stop and end of turn, into the adapter's
 * stream (the speech pool's threads), one stream per conversation as a call hears its caller (a turn on a line found
 * noisy is decoded again from its start through RNNoise, or heard whole so when it is too short to tell while it is
 * spoken; the line's next turns live through it). Two ways side by side, alternating
 * conversation by conversation:
 * - held: the stream is told of the detector's speech stop (as calls do since 2026-12-02): the quiet after it is not
 *   decoded and the turn settles in it, its result worked out while the detector still waits for the end of turn;
 * - decoded: never told (as before), the end-of-turn wait is decoded.
 * Every field open (the costliest grammar). CPU counts every thread of the process, per second of speech.
 *
 *   npm run bench -- speech_call_turns          (SPEECH_DEV_DIR overrides ../shared/speech-dev)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readWav } from '../src/audio/index.js';
import { createCallAudioState, stepCallAudio } from '../src/audio/call_audio.js';
import { earsStats, OfflineStt, type OfflineSttStream } from '../src/speech/ears/stt.js';
import { trimToSpeech } from '../src/speech/ears/trim.js';
import { closeSpeechPool, warmEars } from '../src/speech/pool.js';
import { loadManifest } from './speech_dev_lib.js';

const dir = process.env.SPEECH_DEV_DIR ?? path.resolve('../shared/speech-dev');
if (!existsSync(dir)) { console.log(`no speech-dev set at ${dir}: skipped`); process.exit(0); }
const conversations = loadManifest(dir).map((c) => c.turns.map((t) => readWav(new Uint8Array(readFileSync(path.join(dir, t.file)))).pcm));
const files = conversations.flat();
const speechSeconds = files.reduce((a, pcm) => a + trimToSpeech(pcm, 8000).length / 8000, 0);

/**
 * One file through the conversation's stream as a call feeds it, the file's first 200 ms of background repeated after
 * it until the detector ends the turn. Returns the CPU the turn took, the wait from the end of turn to the final text,
 * the text.
 */
async function asACallGivesIt(stream: OfflineSttStream, pcm: Int16Array, tellStop: boolean) {
  const detector = createCallAudioState({ sampleRateHz: 8000, turnDetectionTimeoutMs: 800, interruptionSensitivity: 0.5 });
  const background = pcm.subarray(0, 1600);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let f = 0; ; f++) {
    const at = f * 160;
    const frame = at + 160 <= pcm.length ? pcm.subarray(at, at + 160) : background.subarray(at % 1600, (at % 1600) + 160);
    stream.write(frame, f * 20);
    for (const e of stepCallAudio(detector, frame, false)) {
      if (e.type === 'SpeechStarted') stream.speechStarted(e.atMs);
      if (e.type === 'SpeechStopped' && tellStop) stream.speechStopped(e.atMs, e.speechEndMs);
      if (e.type !== 'TurnEnded') continue;
      const end = performance.now();
      const { text } = await stream.finalize({ timeoutMs: 60_000 });
      const waitMs = performance.now() - end;
      const c = process.cpuUsage(c0);
      return { cpuUs: c.user + c.system, waitMs, text };
    }
    if (f % 5 === 4) await sleep(Math.max(0, t0 + (f + 1) * 20 - performance.now()));
  }
}

type Variant = 'held' | 'decoded';
const runs: Record<Variant, { cpuUs: number; lat: number[]; texts: string[]; whole: number; again: number }> = {
  held: { cpuUs: 0, lat: [], texts: [], whole: 0, again: 0 }, decoded: { cpuUs: 0, lat: [], texts: [], whole: 0, again: 0 } };
const stt = new OfflineStt();
await warmEars();
for (const [i, turns] of conversations.entries()) {
  for (const variant of (i % 2 ? ['held', 'decoded'] : ['decoded', 'held']) as Variant[]) {
    const stream = stt.open({ callId: 'bench', language: 'en', sampleRateHz: 8000 });
    for (const pcm of turns) {
      const before = earsStats();
      const r = await asACallGivesIt(stream, pcm, variant === 'held');
      runs[variant].whole += earsStats().whole - before.whole;
      runs[variant].again += earsStats().noisyRestarts - before.noisyRestarts;
      runs[variant].cpuUs += r.cpuUs; runs[variant].lat.push(r.waitMs); runs[variant].texts.push(r.text);
    }
    stream.close();
  }
}
await closeSpeechPool();

const spread = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? `${Math.round(s[Math.floor(s.length / 2)])} / ${Math.round(s.at(-1)!)}` : '-';
};
console.log(`${files.length} speech-dev files whole (${speechSeconds.toFixed(1)} s of speech), real time, the call's detector (800 ms timeout), every field open`);
console.table((Object.entries(runs) as Array<[Variant, (typeof runs)[Variant]]>).map(([variant, r]) => ({
  'quiet after the speech': variant === 'held' ? 'held, the turn settles in it' : 'decoded to the end of turn',
  'CPU ms per speech s': Math.round(r.cpuUs / 1000 / speechSeconds),
  'end of turn to final text p50 / max ms: all': spread(r.lat),
  'accepted turns': spread(r.lat.filter((_, i) => r.texts[i])),
  'rejected turns': spread(r.lat.filter((_, i) => !r.texts[i])),
  accepted: `${r.texts.filter(Boolean).length}/${files.length}`,
  'heard whole': r.whole,
  'decoded again, line noisy': r.again,
  'same text as held': `${r.texts.filter((x, i) => x === runs.held.texts[i]).length}/${files.length}`,
})));
process.exit(0);

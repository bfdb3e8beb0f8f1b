/**
 * Per-turn latency of live-mode calls against fake providers in another process (bench/fakes: Twilio carrier and
 * media client, Deepgram live, Chat Completions SSE, ElevenLabs HTTP streaming) at fixed latencies: speech-to-text
 * final 150 ms after the end of speech (or a Finalize), first model token 300 ms then 40 tokens/s, first synthesis
 * byte 100 ms (FAKE_* settings, bench/fakes/settings.ts). The service runs in this process (startServer,
 * SERVICE_MODE=live); each fake caller speaks corpus turns in real time with silent gaps for the agent's answer.
 *
 * Per level (CALLS, default 1,100,200), from call.metrics.turns: p50/p99 of each stage of the latency split
 * (endpointing, final transcript, first token, first sentence, first synthesis byte, first frame sent, total), and
 * pipeline-added = total - endpointing - what the fakes take on the path (the wait for the Deepgram final, up to
 * its configured delay, the first token, the model time to the first whole sentence, the first synthesis byte),
 * target p99 <= 10 ms at 200 calls; service CPU per call-second (process.cpuUsage of this process, which holds the
 * service and only a thin dispatcher, over calls x HOLD_SECONDS); the fake phones' underruns. Then, in the same run,
 * first agent audio (turn end -> first frame) with sentence streaming against REPLY_MODE=whole at COMPARE_CALLS.
 *   CALLS=1,100,200 HOLD_SECONDS=40 RAMP_MS=5000 COMPARE_CALLS=10 npx tsx bench/live_turns.bench.ts
 * Storage: DATABASE_URL (else embedded PGlite in memory); bus: REDIS_URL (else in-process).
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { TurnLatency } from '../src/calls/types.js';
import { startFakes, type FakesStats } from './fakes/launch.js';
import { fakeSettings, firstSentenceModelMs, replyTokens } from './fakes/settings.js';
import { f1, f2, fakesEnv, freePort, liveConfig, pct, printTable, requireProviders, runCalls, startService, statuses, type LiveStack } from './live_setup.js';

const LEVELS = (process.env.CALLS ?? '1,100,200').split(',').map(Number).filter((n) => n > 0);
const HOLD_S = Number(process.env.HOLD_SECONDS ?? 40);
const RAMP_MS = Number(process.env.RAMP_MS ?? 5000);
const COMPARE_CALLS = Number(process.env.COMPARE_CALLS ?? 10);
const STACK: LiveStack = { carrier: 'twilio', stt: 'deepgram', dialog: 'openai', tts: 'elevenlabs' };

requireProviders(STACK);
const fake = fakeSettings(); // the same environment configures the fakes process
const modelToSentenceMs = firstSentenceModelMs(fake);
const modelWholeMs = ((replyTokens().length - 1) * 1000) / fake.tokensPerS;
/**
 * What the fakes take on a turn's path, streamed. The transcript wait is the fake's up to its configured delay: a
 * final the fake had already scheduled from its own endpointing can land sooner after our turn end (a wait of 149.8
 * ms was counted as 150 ms of pipeline); the instant check of a final already there (< 0.1 ms) goes with it.
 */
const fakesOnPath = (t: TurnLatency, whole = false) => Math.min(t.stt_ms, fake.sttFinalMs)
  + fake.firstTokenMs + (whole ? modelWholeMs : modelToSentenceMs) + fake.ttsFirstByteMs;

const port = await freePort();
const fakes = await startFakes(fakesEnv(port));

interface Phase { calls: number; mode: string; turns: TurnLatency[]; ended: number; statuses: string; wallS: number; cpuMsPerCallS: number; loopP99: number; fakes: FakesStats }

async function phase(n: number, mode: 'streamed' | 'whole'): Promise<Phase> {
  const srv = await startService(liveConfig(fakes, port, STACK, { REPLY_MODE: mode }));
  try {
    await fakes.reset();
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const cpu0 = process.cpuUsage();
    const { rows, wallS } = await runCalls(srv, n, HOLD_S, RAMP_MS);
    const cpu = process.cpuUsage(cpu0);
    loop.disable();
    const turns = rows.flatMap((r) => r.metrics?.turns ?? []);
    return { calls: n, mode, turns, ended: rows.length, statuses: statuses(rows), wallS, cpuMsPerCallS: (cpu.user + cpu.system) / 1000 / (n * HOLD_S),
      loopP99: loop.percentile(99) / 1e6, fakes: await fakes.stats() };
  } finally {
    await srv.close();
  }
}

const results: Phase[] = [];
try {
  for (const n of LEVELS) {
    const r = await phase(n, 'streamed');
    results.push(r);
    console.log(`  ${n} calls: ${r.turns.length} turns, ${r.ended}/${n} ended (${r.statuses}), ${r.wallS.toFixed(1)} s`);
    if (!r.turns.length) {
      console.error(`no turn was measured: fakes saw ${JSON.stringify({ twilio: r.fakes.carriers.twilio, stt: r.fakes.stt, chat: r.fakes.chat, tts: r.fakes.tts })}`);
      console.error(`last carrier callbacks: ${JSON.stringify(r.fakes.callbacks.twilio.slice(-5))}`);
      process.exitCode = 1;
      break;
    }
  }
  if (!process.exitCode) {
    const streamed = results.find((r) => r.calls === COMPARE_CALLS) ?? await phase(COMPARE_CALLS, 'streamed');
    if (!results.includes(streamed)) results.push(streamed);
    results.push(await phase(COMPARE_CALLS, 'whole'));
    console.log(`  ${COMPARE_CALLS} calls, whole replies: ${results.at(-1)!.turns.length} turns`);
  }
} finally {
  await fakes.stop();
}

const stages: Array<[string, (t: TurnLatency) => number]> = [
  ['endpointing (media time)', (t) => t.endpointing_ms],
  [`transcript final (fake ${fake.sttFinalMs})`, (t) => t.stt_ms],
  [`first dialog text (fake first token ${fake.firstTokenMs})`, (t) => t.dialog_ms],
  // an adapter that holds text to sentence boundaries moves the model's time to the first sentence into the stage above
  [`first sentence (fake model time ${f1(modelToSentenceMs)})`, (t) => t.sentence_ms],
  [`first synthesis byte (fake ${fake.ttsFirstByteMs})`, (t) => t.tts_ms],
  ['first frame sent', (t) => t.send_ms],
  ['total (speech end -> first frame)', (t) => t.total_ms],
  ['pipeline-added (total - endpointing - fakes)', (t) => t.total_ms - t.endpointing_ms - fakesOnPath(t)],
];
console.log(`\nlive-mode turn latency, fakes in another process (twilio, deepgram, openai, elevenlabs); each call hung up after ${HOLD_S} s, `
  + `starts spread over ${RAMP_MS} ms; ${cpus().length} CPUs, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const streamedPhases = results.filter((r) => r.mode === 'streamed');
printTable(['calls', 'stage', 'turns', 'p50 ms', 'p99 ms', 'max ms'], streamedPhases.flatMap((r) => stages.map(([name, fn]) => {
  const xs = r.turns.map(fn).sort((a, b) => a - b);
  return [String(r.calls), name, String(xs.length), f2(pct(xs, 50)), f2(pct(xs, 99)), f2(xs.at(-1) ?? NaN)];
})));
console.log('');
for (const r of streamedPhases) {
  const added = r.turns.map((t) => t.total_ms - t.endpointing_ms - fakesOnPath(t)).sort((a, b) => a - b);
  const c = r.fakes.carriers.twilio;
  console.log(`${r.calls} calls: ${r.ended} ended (${r.statuses}); service CPU ${f2(r.cpuMsPerCallS)} ms per call-second; event-loop delay p99 ${f1(r.loopP99)} ms; fakes process ${f1(r.fakes.cpuMs / (r.calls * HOLD_S))} ms per call-second; `
    + `fake phones: ${c.underruns} underruns (${f1(c.gapMs)} ms of gaps, max ${f1(c.maxGapMs)} ms) in ${c.agentFrames} agent frames, `
    + `${c.callerLate}/${c.callerChunks} caller chunks sent late by the fake`
    + `${r.calls === 200 ? `; pipeline-added p99 ${f2(pct(added, 99))} ms -> target <= 10 ms: ${pct(added, 99) <= 10 ? 'met' : 'MISSED'}` : ''}`);
}
const whole = results.find((r) => r.mode === 'whole');
const streamedAtCompare = streamedPhases.find((r) => r.calls === COMPARE_CALLS);
if (whole && streamedAtCompare) {
  console.log(`\nfirst agent audio (turn end -> first frame sent) at ${COMPARE_CALLS} calls, same run; the model takes ${f1(modelToSentenceMs)} ms `
    + `from its first token to the first sentence and ${f1(modelWholeMs)} ms to the end of the reply`);
  printTable(['reply', 'turns', 'p50 ms', 'p99 ms'], [['sentence streaming', streamedAtCompare], ['whole reply (REPLY_MODE=whole)', whole]].map(([name, r]) => {
    const p = r as Phase;
    const xs = p.turns.map((t) => t.total_ms - t.endpointing_ms).sort((a, b) => a - b);
    return [name as string, String(xs.length), f2(pct(xs, 50)), f2(pct(xs, 99))];
  }));
}
process.exit(process.exitCode ?? 0);

/**
 * Service CPU per call-second and agent-audio pacing at 1, 100 and 300 concurrent calls (CALLS) through each
 * carrier's fake (twilio, plivo, exotel: REST + signed callbacks + a media client streaming corpus speech in real
 * time, in the fakes process, bench/fakes) beside the simulator (its callees on their own thread in this process).
 * Pacing is what a phone would hear of the agent: underruns = its playback buffer ran dry inside a reply and
 * refilled within FAKE_UNDERRUN_WINDOW_MS (500 ms), with the gaps' total and longest; the same accounting
 * (bench/fakes/phone.ts Playback) runs on the fake carriers' media clients and, for the simulator, on the frames its
 * media edge sends. "late caller chunks" is the fake's own lag sending the caller's audio (> 40 ms): non-zero means
 * the fakes process, not the service, fell behind. Live carriers use deepgram/openai/elevenlabs against the fakes
 * too (live mode needs real speech providers); CPU per call-second = this process's CPU (the service and a thin
 * dispatcher; for the simulator also its callees' thread) over calls x HOLD_SECONDS.
 *   CARRIERS=simulator,twilio,plivo,exotel CALLS=1,100,300 HOLD_SECONDS=30 RAMP_MS=5000 npx tsx bench/carriers_load.bench.ts
 * A carrier whose provider is not on this branch is reported as not implemented (exit code 2 after the others ran).
 * Exotel's applet asks the service for its stream URL at FAKE_EXOTEL_VOICEBOT_URL (default
 * PUBLIC_BASE_URL/carriers/exotel/stream; EXOTEL_VOICEBOT_PATH changes the path).
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { TwilioStream } from '../src/carriers/twilio/codec.js';
import { startFakes, type FakesProcess } from './fakes/launch.js';
import { emptyLineStats, Playback, type LineStats } from './fakes/phone.js';
import { fakeSettings } from './fakes/settings.js';
import { API_KEY, f1, f2, fakesEnv, freePort, liveConfig, missingProviders, notImplemented, printTable, runCalls, startService, statuses, type CallRow } from './live_setup.js';

const CARRIERS = (process.env.CARRIERS ?? 'simulator,twilio,plivo,exotel').split(',').map((s) => s.trim()).filter(Boolean);
const LEVELS = (process.env.CALLS ?? '1,100,300').split(',').map(Number).filter((n) => n > 0);
const HOLD_S = Number(process.env.HOLD_SECONDS ?? 30);
const RAMP_MS = Number(process.env.RAMP_MS ?? 5000);
const UNDERRUN_WINDOW_MS = fakeSettings().underrunWindowMs;

interface Row { carrier: string; calls: number; rows: CallRow[]; cpuMsPerCallS: number; loopP99: number; line: LineStats; note?: string }
const results: Row[] = [];
const skipped: string[] = [];

/** The simulator's media edge, watched with the fake phones' playback accounting (patched for its phase only). */
async function simulatorPhase(n: number): Promise<Row> {
  const line = emptyLineStats();
  const playbacks = new Map<TwilioStream, Playback>();
  const p = TwilioStream.prototype;
  const orig = { sendMedia: p.sendMedia, sendClear: p.sendClear, close: p.close };
  const of = (s: TwilioStream) => {
    let pb = playbacks.get(s);
    if (!pb) { pb = new Playback(line, UNDERRUN_WINDOW_MS, () => {}); playbacks.set(s, pb); line.calls++; }
    return pb;
  };
  p.sendMedia = function (this: TwilioStream, f: Uint8Array) { of(this).agentFrames(1, performance.now()); return orig.sendMedia.call(this, f); };
  p.sendClear = function (this: TwilioStream) { of(this).clear(); return orig.sendClear.call(this); };
  p.close = function (this: TwilioStream) { playbacks.delete(this); return orig.close.call(this); };
  const pump = setInterval(() => { const now = performance.now(); for (const pb of playbacks.values()) pb.pump(now); }, 5);
  const srv = await startService(loadConfig({
    SERVICE_MODE: 'simulator', HOST: '127.0.0.1', PORT: '0', DATA_DIR: 'memory', LOG_LEVEL: 'silent', SERVICE_API_KEY: API_KEY,
    SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL,
    SIM_TIME_SCALE: '1', SIM_SPEECH: 'tones', SIM_CALLEE_THREAD: 'true', MAX_CONCURRENT_CALLS_PER_TENANT: '10000', CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0',
    PRIVACY_EXPIRE_INTERVAL_MS: '0',
  }));
  try {
    return await measure('simulator', n, () => runCalls(srv, n, HOLD_S, RAMP_MS), () => line);
  } finally {
    await srv.close();
    clearInterval(pump);
    Object.assign(p, orig);
  }
}

async function carrierPhase(carrier: string, n: number, fakes: FakesProcess, port: number): Promise<Row> {
  const srv = await startService(liveConfig(fakes, port, { carrier, stt: 'deepgram', dialog: 'openai', tts: 'elevenlabs' }));
  try {
    await fakes.reset();
    const row = await measure(carrier, n, () => runCalls(srv, n, HOLD_S, RAMP_MS), emptyLineStats);
    row.line = (await fakes.stats()).carriers[carrier as 'twilio' | 'plivo' | 'exotel'];
    return row;
  } finally {
    await srv.close();
  }
}

async function measure(carrier: string, n: number, run: () => Promise<{ rows: CallRow[] }>, line: () => LineStats): Promise<Row> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const { rows } = await run();
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  return { carrier, calls: n, rows, cpuMsPerCallS: (cpu.user + cpu.system) / 1000 / (n * HOLD_S), loopP99: loop.percentile(99) / 1e6, line: line() };
}

const live = CARRIERS.filter((c) => c !== 'simulator');
let fakes: FakesProcess | undefined;
let port = 0;
try {
  for (const carrier of CARRIERS) {
    if (carrier !== 'simulator') {
      const missing = missingProviders({ carrier, stt: 'deepgram', dialog: 'openai', tts: 'elevenlabs' });
      if (missing.length) { skipped.push(carrier); console.error(`${carrier}: ${notImplemented(missing)}`); continue; }
      if (!fakes) { port = await freePort(); fakes = await startFakes(fakesEnv(port)); }
    }
    for (const n of LEVELS) {
      const r = carrier === 'simulator' ? await simulatorPhase(n) : await carrierPhase(carrier, n, fakes!, port);
      results.push(r);
      console.log(`  ${carrier} ${n} calls: ${r.rows.length} ended (${statuses(r.rows)})`);
    }
  }
} finally {
  await fakes?.stop();
}

if (results.length) console.log(`\ncarrier media load: each call hung up after ${HOLD_S} s, starts spread over ${RAMP_MS} ms; live carriers against the fakes process `
  + `(${live.join(', ') || 'none'}), the simulator with its callees on a thread; ${cpus().length} CPUs, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
if (results.length) printTable(['carrier', 'calls', 'ended', 'turns', 'CPU ms / call-s', 'agent frames', 'underruns', 'gaps ms (max)', 'late caller chunks (fake)', 'protocol errors', 'loop p99 ms'],
  results.map((r) => [r.carrier, String(r.calls), `${r.rows.filter((x) => x.status === 'completed').length}/${r.calls}`,
    String(r.rows.reduce((s, x) => s + (x.metrics?.turn_count ?? 0), 0)), f2(r.cpuMsPerCallS), String(r.line.agentFrames), String(r.line.underruns),
    `${f1(r.line.gapMs)} (${f1(r.line.maxGapMs)})`, r.carrier === 'simulator' ? '-' : `${r.line.callerLate}/${r.line.callerChunks}`,
    r.carrier === 'simulator' ? '-' : String(r.line.protocolErrors), f1(r.loopP99)]));
for (const c of skipped) console.log(`${c}: not implemented here`);
process.exit(skipped.length ? 2 : 0);

/**
 * Live-mode capacity of one machine: the service as one process against one process per core (INSTANCES, node:
 * cluster, src/cluster.ts), side by side in one run against the same fakes process (bench/fakes: Twilio carrier
 * and phones, Deepgram live, Chat Completions SSE, ElevenLabs; the latencies of bench/fakes/settings.ts). Each
 * layout is started as `node src/main.ts` on a fresh PostgreSQL schema and Redis (INSTANCES needs both); at each
 * level CALLS calls are dispatched through the one port (the cluster's primary hands connections to its processes
 * in turn), held HOLD_SECONDS, and hung up through the API (a hang-up often lands on a process that does not run
 * the call: the command channel carries it). Per level: calls ended as hung up, turn latency (speech end -> first
 * frame) p50/p99, pipeline-added p99 (total - endpointing - what the fakes take), the fake phones' underruns, and
 * the service processes' CPU per call-second (from /proc). Capacity: the highest level with every call ended as
 * hung up, pipeline-added p99 <= 10 ms and no underrun.
 *   DATABASE_URL=postgres://… REDIS_URL=redis://… CALLS=25,50,100 HOLD_SECONDS=30 npm run bench -- live_cluster
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TurnLatency } from '../src/calls/types.js';
import { startFakes } from './fakes/launch.js';
import { fakeSettings, firstSentenceModelMs } from './fakes/settings.js';
import { API_KEY, dispatch, f1, f2, fakesEnv, freePort, liveEnv, pct, printTable, requireProviders, sleep, statuses, TERMINAL, type CallRow, type LiveStack } from './live_setup.js';

const LEVELS = (process.env.CALLS ?? '25,50,100').split(',').map(Number).filter((n) => n > 0);
const HOLD_S = Number(process.env.HOLD_SECONDS ?? 30);
const RAMP_MS = Number(process.env.RAMP_MS ?? 5000);
const CORES = availableParallelism();
const STACK: LiveStack = { carrier: 'twilio', stt: 'deepgram', dialog: 'openai', tts: 'elevenlabs' };
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
  console.error('live_cluster needs DATABASE_URL and REDIS_URL: several processes share PostgreSQL and Redis (INSTANCES refuses the embedded default)');
  process.exit(2);
}
requireProviders(STACK);
const fake = fakeSettings();
const fakesOnPath = (t: TurnLatency) => Math.min(t.stt_ms, fake.sttFinalMs) + fake.firstTokenMs + firstSentenceModelMs(fake) + fake.ttsFirstByteMs;

async function freshSchema(): Promise<string> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  const u = new URL(process.env.DATABASE_URL!);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/** CPU ms so far of a process and its children (the cluster's workers), from /proc. */
function cpuMsOf(pid: number): number {
  const tick = 100; // USER_HZ on Linux
  const one = (p: number) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / tick;
    } catch { return 0; }
  };
  let kids: number[] = [];
  try { kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number); } catch { /* none */ }
  return one(pid) + kids.reduce((s, k) => s + one(k), 0);
}

interface Level { layout: string; calls: number; ended: number; hungUp: number; statuses: string; turns: TurnLatency[]; cpuMsPerCallS: number; underruns: number; load: number }

async function layout(processes: number, fakes: Awaited<ReturnType<typeof startFakes>>, port: number): Promise<Level[]> {
  const db = await freshSchema();
  const env = { ...process.env, ...liveEnv(fakes, port, STACK, { DATABASE_URL: db, REDIS_KEY_PREFIX: `bench-${randomBytes(4).toString('hex')}:`, LOG_LEVEL: 'info' }),
    INSTANCES: String(processes) };
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=8', '--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  const name = processes === 1 ? '1 process' : `${processes} processes (INSTANCES=${processes})`;
  try {
    const deadline = Date.now() + 180_000;
    while ((out.match(/voicecall listening/g) ?? []).length < processes) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not start: ${out.slice(-500)}`);
      await sleep(200);
    }
    out = ''; // request logs from here on are not kept
    const srv = { baseUrl: `http://127.0.0.1:${port}/v1` };
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    const levels: Level[] = [];
    try {
      for (const n of LEVELS) {
        await fakes.reset();
        const cpu0 = cpuMsOf(child.pid!);
        const ids: string[] = [];
        const hangups: Array<Promise<unknown>> = [];
        await Promise.all(Array.from({ length: n }, async (_, i) => {
          await sleep(n > 1 ? (RAMP_MS * i) / n : 0);
          const id = await dispatch(srv, i);
          ids.push(id);
          hangups.push(sleep(HOLD_S * 1000).then(() => fetch(`${srv.baseUrl}/calls/${id}/hangup`, { method: 'POST', headers: { 'x-api-key': API_KEY } })).catch(() => {}));
        }));
        await Promise.all(hangups);
        let rows: CallRow[] = [];
        for (let i = 0; i < 300; i++) {
          rows = (await client.query<CallRow>('SELECT id, status, ended_reason, metrics FROM calls WHERE id = ANY($1)', [ids])).rows;
          if (rows.length === n && rows.every((r) => TERMINAL.includes(r.status))) break;
          await sleep(200);
        }
        const cpu = cpuMsOf(child.pid!) - cpu0;
        const st = await fakes.stats();
        const level: Level = { layout: name, calls: n, ended: rows.length, hungUp: rows.filter((r) => r.ended_reason === 'hangup_api').length,
          statuses: statuses(rows), turns: rows.flatMap((r) => r.metrics?.turns ?? []), cpuMsPerCallS: cpu / (n * HOLD_S),
          underruns: st.carriers.twilio.underruns, load: loadavg()[0] };
        levels.push(level);
        console.log(`  ${name}, ${n} calls: ${level.turns.length} turns, ${level.hungUp}/${n} hung up (${level.statuses})`);
      }
    } finally {
      await client.end();
    }
    return levels;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}

const port = await freePort();
const fakes = await startFakes(fakesEnv(port));
const results: Level[] = [];
try {
  results.push(...await layout(1, fakes, port));
  if (CORES > 1) results.push(...await layout(CORES, fakes, port));
  else console.log('one core: INSTANCES=auto runs one process; nothing to compare');
} finally {
  await fakes.stop();
}

console.log(`\nlive-mode capacity, one process against one per core (${CORES} cores); each call held ${HOLD_S} s, starts over ${RAMP_MS} ms; `
  + `load at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const ok = (l: Level) => {
  const added = l.turns.map((t) => t.total_ms - t.endpointing_ms - fakesOnPath(t)).sort((a, b) => a - b);
  return { added99: pct(added, 99), pass: l.hungUp === l.calls && l.turns.length > 0 && pct(added, 99) <= 10 && l.underruns === 0 };
};
printTable(['layout', 'calls', 'hung up', 'turns', 'total p50 ms', 'total p99 ms', 'pipeline-added p99 ms', 'underruns', 'CPU ms/call-s', 'load 1m', 'within target'],
  results.map((l) => {
    const total = l.turns.map((t) => t.total_ms).sort((a, b) => a - b);
    const o = ok(l);
    return [l.layout, String(l.calls), `${l.hungUp}/${l.calls}`, String(l.turns.length), f1(pct(total, 50)), f1(pct(total, 99)), f2(o.added99),
      String(l.underruns), f2(l.cpuMsPerCallS), f1(l.load), o.pass ? 'yes' : 'no'];
  }));
for (const name of [...new Set(results.map((l) => l.layout))]) {
  const best = results.filter((l) => l.layout === name && ok(l).pass).map((l) => l.calls);
  console.log(`${name}: capacity ${best.length ? `${Math.max(...best)} calls (highest level within target)` : 'below the lowest level measured'}`);
}
process.exit(0);

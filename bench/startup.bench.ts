/**
 * Start-up time and resident memory of the listening process, per way of running it:
 *  - tsx: TypeScript through the runtime loader (`node --import tsx src/main.ts`, what `npm start` ran before and
 *    `npm run dev` runs now);
 *  - compiled: `npm start` (scripts/start.mjs: the esbuild output in dist/server);
 *  - compiled, 1 audio thread: AUDIO_THREADS=1 (what a worker thread costs);
 *  - compiled, PostgreSQL: DATABASE_URL set (a fresh schema), so the embedded database's share shows (only when
 *    DATABASE_URL is given to the bench).
 * Per variant: one start on a new DATA_DIR (the embedded database is created; RSS IDLE_S later), then WARM_RUNS
 * starts on it; time from spawn to the first 200 on GET /v1/health; RSS (VmRSS of the process: main thread and worker threads) IDLE_S
 * after that answer, then the peak while CALLS simulated calls run (dispatched over HTTP, sampled every 250 ms for
 * CALLS_WINDOW_S). A plain `node` idling is measured too, as the floor.
 *   npm run bench -- startup
 *   WARM_RUNS=3 IDLE_S=10 CALLS=20 CALLS_WINDOW_S=20 VARIANTS=tsx,compiled npx tsx bench/startup.bench.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshSchema } from './bench_schema.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const WARM_RUNS = Number(process.env.WARM_RUNS ?? 3);
const IDLE_S = Number(process.env.IDLE_S ?? 10);
const CALLS = Number(process.env.CALLS ?? 20);
const CALLS_WINDOW_S = Number(process.env.CALLS_WINDOW_S ?? 20);
const API_KEY = 'bench-startup-api-key-0123456789';
const FLAGS = ['--max-semi-space-size=8']; // as package.json's start and dev scripts
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Variant { name: string; args: string[]; env?: Record<string, string>; pg?: boolean }
const ALL: Variant[] = [
  { name: 'tsx', args: [...FLAGS, '--import', 'tsx', 'src/main.ts'] },
  { name: 'compiled', args: [...FLAGS, 'scripts/start.mjs'] },
  { name: 'compiled, 1 audio thread', args: [...FLAGS, 'scripts/start.mjs'], env: { AUDIO_THREADS: '1' } },
  ...(process.env.DATABASE_URL ? [{ name: 'compiled, PostgreSQL', args: [...FLAGS, 'scripts/start.mjs'], pg: true }] : []),
];
const wanted = process.env.VARIANTS?.split(',').map((s) => s.trim());
const variants = wanted ? ALL.filter((v) => wanted.includes(v.name)) : ALL;

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

interface Run { child: ChildProcess; base: string; msToHealth: number }

async function start(v: Variant, env: Record<string, string>): Promise<Run> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, v.args, {
    cwd: root, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, REDIS_URL: '', LOG_LEVEL: 'warn', PORT: String(port), SERVICE_API_KEY: API_KEY, ...v.env, ...env },
  });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  const base = `http://127.0.0.1:${port}/v1`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${v.name} exited ${child.exitCode}: ${err.slice(-2000)}`);
    const ok = await fetch(`${base}/health`).then((r) => r.ok, () => false);
    if (ok) return { child, base, msToHealth: performance.now() - t0 };
    await sleep(50);
  }
}

async function stop(run: Run) {
  if (run.child.exitCode !== null) return;
  run.child.kill('SIGTERM');
  await once(run.child, 'exit');
}

async function underCalls(run: Run): Promise<{ peak: number; live: number }> {
  const ids: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const res = await fetch(`${run.base}/calls/dispatch`, {
      method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ to: `+1415555${String(1000 + i)}`, agent_id: 'default', language: 'en-US' }),
    });
    const body = await res.json() as { id?: string };
    if (!res.ok || !body.id) throw new Error(`dispatch ${res.status} ${JSON.stringify(body)}`);
    ids.push(body.id);
  }
  let peak = 0;
  for (let t = 0; t < CALLS_WINDOW_S * 4; t++) { peak = Math.max(peak, rssMb(run.child.pid!)); await sleep(250); }
  const states = await Promise.all(ids.map((id) => fetch(`${run.base}/calls/${id}`, { headers: { 'x-api-key': API_KEY } }).then((r) => r.json() as Promise<{ status: string }>)));
  return { peak, live: states.filter((s) => s.status === 'in_progress' || s.status === 'ringing').length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows: string[][] = [];

// the floor: node itself, idle
{
  const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  await sleep(1000);
  rows.push(['node, nothing loaded', '-', '-', '-', rssMb(idle.pid!).toFixed(0), '-', '-']);
  idle.kill();
}

for (const v of variants) {
  const dataDir = mkdtempSync(join(tmpdir(), 'voicecall-startup-'));
  const schema = v.pg ? await freshSchema(process.env.DATABASE_URL!) : undefined;
  const env = schema ? { DATABASE_URL: schema.url, DATA_DIR: dataDir } : { DATABASE_URL: '', DATA_DIR: dataDir };
  try {
    const cold = await start(v, env);
    await sleep(IDLE_S * 1000);
    const coldIdle = rssMb(cold.child.pid!);
    await stop(cold);
    const warm: number[] = [];
    let idle = NaN;
    let calls = { peak: NaN, live: 0 };
    for (let i = 0; i < WARM_RUNS; i++) {
      const run = await start(v, env);
      warm.push(run.msToHealth);
      if (i === WARM_RUNS - 1) { // the last start: memory idle, then under calls
        await sleep(IDLE_S * 1000);
        idle = rssMb(run.child.pid!);
        calls = await underCalls(run);
      }
      await stop(run);
    }
    rows.push([v.name, (cold.msToHealth / 1000).toFixed(1), coldIdle.toFixed(0), (median(warm) / 1000).toFixed(1), idle.toFixed(0), calls.peak.toFixed(0), `${calls.live}/${CALLS}`]);
    console.log(`${v.name}: done`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await schema?.drop();
  }
}

console.log(`\nstart-up and memory (load average ${loadavg()[0].toFixed(1)}; ${WARM_RUNS} warm starts, RSS ${IDLE_S} s after /v1/health, peak under ${CALLS} calls over ${CALLS_WINDOW_S} s)`);
console.log('| variant | s to /v1/health, new DATA_DIR | RSS idle MB, new DATA_DIR | s to /v1/health, warm (median) | RSS idle MB | RSS peak, calls MB | calls live at the end |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);

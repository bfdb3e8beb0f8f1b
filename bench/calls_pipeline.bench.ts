/**
 * Pipeline-added latency of a call turn: from "turn end decided" (the session handling the audio core's
 * TurnEnded) to "first agent audio frame sent" on the media WebSocket, with the in-process simulator adapters
 * (answering instantly), at 1, 200 and 500 concurrent simulated calls through the real service: startServer in
 * simulator mode, calls dispatched over HTTP, each simulated callee on a real media WebSocket, real audio pool.
 *
 * The session records each turn in call.metrics.turns: total_ms = endpointing_ms + (first frame sent - turn end
 * decided), so pipeline-added = total_ms - endpointing_ms; stages stt_ms (finalize), dialog_ms (to the first
 * text), tts_ms (first text to first audio chunk); "rest" = pipeline - stt - dialog - tts (turn hand-off,
 * mu-law framing, playout, the first WebSocket send). Target: p99 < 5 ms at 200 calls.
 *
 * Each call is hung up after PHASE_SECONDS of media (up to 4 caller turns of the cooperative script), starts are spread
 * over RAMP_MS. Storage: DATABASE_URL (a fresh schema, dropped after) else embedded PGlite in memory; bus:
 * REDIS_URL else in-process.
 *   npm run bench -- calls_pipeline
 *   CALLS=1,200,500 SIM_TIME_SCALE=1 PHASE_SECONDS=40 RAMP_MS=5000 npx tsx bench/calls_pipeline.bench.ts
 */
import { cpus, loadavg } from 'node:os';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { DEV_TENANT_ID } from '../src/services.js';
import type { CallMetrics } from '../src/calls/types.js';
import { freshSchema } from './bench_schema.js';
import { API_KEY, dispatch as dispatchCall } from './live_setup.js';

const SCALE = Number(process.env.SIM_TIME_SCALE ?? 1);
// Simulated callees on their own thread (default) so the figures are the service's, not the service's plus
// hundreds of simulated phones sharing its event loop; CALLEES=process puts them back in-process.
const CALLEE_THREAD = (process.env.CALLEES ?? 'thread') !== 'process';
const LEVELS = (process.env.CALLS ?? '1,200,500').split(',').map(Number).filter((n) => n > 0);
const PHASE_SECONDS = Number(process.env.PHASE_SECONDS ?? 40);
const RAMP_MS = Number(process.env.RAMP_MS ?? 5000);
const TERMINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN);
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

const schema = process.env.DATABASE_URL ? await freshSchema(process.env.DATABASE_URL) : undefined;
const config = loadConfig({
  SERVICE_MODE: 'simulator', HOST: '127.0.0.1', PORT: '0', DATA_DIR: 'memory', LOG_LEVEL: 'silent', SERVICE_API_KEY: API_KEY,
  SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', DATABASE_URL: schema?.url, REDIS_URL: process.env.REDIS_URL,
  SIM_TIME_SCALE: String(SCALE), SIM_SPEECH: 'tones', SIM_CALLEE_THREAD: CALLEE_THREAD ? 'true' : 'false', MAX_CONCURRENT_CALLS_PER_TENANT: '10000', CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0',
  PRIVACY_EXPIRE_INTERVAL_MS: '0',
});
const srv = await startServer(config, { log: createLogger('silent') });
const storage = `${srv.services.db.kind}${schema ? ' (DATABASE_URL, own schema)' : ''}`;
const bus = process.env.REDIS_URL ? 'redis (REDIS_URL)' : 'in-process';

const dispatch = (i: number) => dispatchCall(srv, i);

interface PhaseResult { calls: number; ended: number; turns: number; wallS: number; cpuPct: number; loopP99: number; load: string; gc: string; rows: string[][] }

/** GC pauses of the main thread (they stop every turn in flight) */
const gcPauses: number[] = [];
/** pause ms by kind: scavenges (young generation) vs mark-compacts (the long ones) */
const gcByKind = { minor: 0, major: 0, minorN: 0, majorN: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcPauses.push(e.duration);
    const major = ((e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0) & constants.NODE_PERFORMANCE_GC_MAJOR;
    if (major) { gcByKind.major += e.duration; gcByKind.majorN++; } else { gcByKind.minor += e.duration; gcByKind.minorN++; }
  }
}).observe({ entryTypes: ['gc'] });

async function phase(n: number): Promise<PhaseResult> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  gcPauses.length = 0;
  Object.assign(gcByKind, { minor: 0, major: 0, minorN: 0, majorN: 0 });
  const ids: string[] = [];
  const hangups: Array<Promise<void>> = [];
  const ramp = n > 1 ? RAMP_MS : 0;
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    await sleep((ramp * i) / n);
    const id = await dispatch(i);
    ids.push(id);
    // hang up after PHASE_SECONDS of media (dispatch -> answer -> media takes a few ms more, ignored)
    hangups.push(sleep((PHASE_SECONDS * 1000) / SCALE).then(() => srv.services.calls.hangup(DEV_TENANT_ID, id).then(() => {}, () => {})));
  }));
  await Promise.all(hangups);
  let rows: Array<{ id: string; status: string; metrics: CallMetrics | null }> = [];
  for (let i = 0; i < 600; i++) {
    rows = (await srv.services.db.query<{ id: string; status: string; metrics: CallMetrics | null }>(
      'SELECT id, status, metrics FROM calls WHERE id = ANY($1)', [ids])).rows;
    if (rows.length === n && rows.every((r) => TERMINAL.includes(r.status))) break;
    await sleep(200);
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  const turns = rows.flatMap((r) => r.metrics?.turns ?? []);
  const series: Record<string, number[]> = {
    'pipeline-added (total - endpointing)': turns.map((t) => t.total_ms - t.endpointing_ms),
    // the same turn of every call, so runs whose calls reach different numbers of turns compare like for like
    'pipeline-added, first caller turn': rows.flatMap((r) => r.metrics?.turns?.slice(0, 1) ?? []).map((t) => t.total_ms - t.endpointing_ms),
    'stt (finalize)': turns.map((t) => t.stt_ms),
    'dialog (to first text)': turns.map((t) => t.dialog_ms),
    'tts (to first chunk)': turns.map((t) => t.tts_ms),
    'rest (hand-off, framing, send)': turns.map((t) => t.total_ms - t.endpointing_ms - t.stt_ms - t.dialog_ms - t.tts_ms),
    'endpointing (media, not pipeline)': turns.map((t) => t.endpointing_ms),
  };
  const out: string[][] = [];
  for (const [stage, xs] of Object.entries(series)) {
    const s = [...xs].sort((a, b) => a - b);
    out.push([String(n), stage, String(s.length), f2(pct(s, 50)), f2(pct(s, 99)), f2(s.at(-1) ?? NaN)]);
  }
  return {
    calls: n, ended: rows.filter((r) => TERMINAL.includes(r.status)).length, turns: turns.length, wallS,
    cpuPct: ((cpu.user + cpu.system) / 1000 / (wallS * 1000)) * 100, loopP99: loop.percentile(99) / 1e6,
    load: loadavg().map((x) => x.toFixed(1)).join(' '), rows: out,
    gc: (() => { const g = [...gcPauses].sort((a, b) => a - b); return `${g.length} GC pauses, total ${g.reduce((a, b) => a + b, 0).toFixed(0)} ms (mark-compact ${gcByKind.majorN} / ${gcByKind.major.toFixed(0)} ms, other ${gcByKind.minorN} / ${gcByKind.minor.toFixed(0)} ms), p99 ${f2(pct(g, 99))} ms, max ${f2(g.at(-1) ?? NaN)} ms`; })(),
  };
}

const results: PhaseResult[] = [];
try {
  for (const n of LEVELS) {
    const r = await phase(n);
    results.push(r);
    console.log(`  ${n} calls: ${r.turns} turns, ${r.ended}/${n} ended, ${r.wallS.toFixed(1)} s`);
  }
} finally {
  const c0 = performance.now();
  await srv.close();
  // a schema drop stuck behind another session's lock must not hold the run (the schema is then left behind)
  await Promise.race([schema?.drop().catch(() => {}), sleep(15_000)]);
  console.log(`  teardown ${((performance.now() - c0) / 1000).toFixed(1)} s`);
}

const head = ['calls', 'stage', 'turns', 'p50 ms', 'p99 ms', 'max ms'];
const rows = results.flatMap((r) => r.rows);
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`\ncall pipeline latency: turn end decided -> first agent frame sent; in-process simulator adapters; callees ${CALLEE_THREAD ? 'on their own thread' : 'in-process'}; SIM_TIME_SCALE=${SCALE}`
  + `${SCALE === 1 ? ' (real-time pacing)' : ''}; each call hung up after ${PHASE_SECONDS} s of media, starts spread over ${RAMP_MS} ms; `
  + `storage ${storage}, bus ${bus}; ${cpus().length} CPUs`);
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
console.log('');
for (const r of results) {
  const p99 = Number(r.rows[0][4]);
  console.log(`${r.calls} calls: ${r.ended}/${r.calls} ended, ${r.turns} turns, wall ${r.wallS.toFixed(1)} s, process CPU ${r.cpuPct.toFixed(0)}% of one core, `
    + `event-loop delay p99 ${r.loopP99.toFixed(1)} ms, ${r.gc}, load average ${r.load}`
    + `${r.calls === 200 ? ` -> target p99 < 5 ms: ${Number.isFinite(p99) && p99 < 5 ? 'met' : 'MISSED'}` : ''}`);
}
process.exit(0);

/**
 * 500 concurrent simulated calls on this machine, through the real service (startServer, simulator mode, calls
 * dispatched over HTTP with a webhook_url, each simulated callee on a real media WebSocket, real audio pool).
 * Reports, honestly whether or not the targets are met (no dropped frames, every webhook delivered):
 *  - frames: what the simulated callees sent (counted on their sockets, only while open) vs what the edge handed
 *    to the session and what the session counted (ledger frames_in in call.metrics). dropped = sent but never
 *    delivered + delivered while the call was live but not counted; frames that arrived after the session had
 *    hung up (in flight during the close handshake) are shown apart as "tail", not as drops. Chunk-number gaps
 *    on each stream are checked too (a chunk seen twice is the edge replaying what arrived before attach).
 *  - late inbound frames: arrival at the edge later than the callee's real-time schedule (first frame + 20 ms
 *    per chunk) by more than LATE_MS; and playout underruns: an agent frame sent after the carrier would already
 *    have played it (first frame of the reply + 20 ms per frame), i.e. a gap the caller hears.
 *  - every call ending with a final status, and every call.completed webhook delivered to a local receiver
 *    (unique webhook-id and call id, duplicates counted), after waiting for the durable delivery to finish.
 *  - wall time, process CPU (all threads: main + audio workers), peak RSS, event-loop delay.
 * Storage: DATABASE_URL (a fresh schema, dropped after) else embedded PGlite in memory; bus: REDIS_URL else in-process.
 *   npm run bench -- calls_load
 *   CALLS=500 SIM_TIME_SCALE=1 RAMP_MS=10000 LATE_MS=60 CALL_WAIT_S=80 HOOK_WAIT_S=40 npx tsx bench/calls_load.bench.ts
 */
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { TwilioStream } from '../src/carriers/twilio/codec.js';
import { startServer } from '../src/server.js';
import { DEV_TENANT_ID } from '../src/services.js';
import type { CallMetrics } from '../src/calls/types.js';
import { freshSchema } from './bench_schema.js';

const CALLS = Number(process.env.CALLS ?? 500);
const SCALE = Number(process.env.SIM_TIME_SCALE ?? 1);
// Callees stay in this process (the frame counts below patch the WebSocket client); CALLEES=thread moves them to
// their own thread, and then the callee-side counts are not available.
const CALLEE_THREAD = process.env.CALLEES === 'thread';
const RAMP_MS = Number(process.env.RAMP_MS ?? 10_000);
const LATE_MS = Number(process.env.LATE_MS ?? 60);
/** after the last dispatch: how long calls may run before the bench hangs them up; then the wait for webhooks */
const CALL_WAIT_S = Number(process.env.CALL_WAIT_S ?? 80);
const HOOK_WAIT_S = Number(process.env.HOOK_WAIT_S ?? 40);
const hungUpByBench = new Set<string>();
const API_KEY = 'bench-service-api-key-0123456789';
const TERMINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
const FRAME_MS = 20 / SCALE;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------- instrumentation (this process only; nothing in src/ is changed) ----------

/** callee side: media frames each simulated carrier socket really sent (socket open), keyed by call id at 'start' */
const sent = new Map<string, number>();
const sockCall = new WeakMap<object, string>();
const sockMedia = new WeakMap<object, number>();
const wsProto = WebSocket.prototype as unknown as { send(data: unknown, ...rest: unknown[]): void; url?: string; readyState: number };
const origSend = wsProto.send;
wsProto.send = function (this: typeof wsProto, data: unknown, ...rest: unknown[]) {
  if (this.url && typeof data === 'string' && this.readyState === 1) { // client sockets = the simulated carriers
    if (data.startsWith('{"event":"media"')) {
      const id = sockCall.get(this);
      if (id) sent.set(id, (sent.get(id) ?? 0) + 1); else sockMedia.set(this, (sockMedia.get(this) ?? 0) + 1);
    } else if (data.startsWith('{"event":"start"')) {
      const id = (JSON.parse(data) as { start: { customParameters: { call_id: string } } }).start.customParameters.call_id;
      sockCall.set(this, id);
      sent.set(id, sockMedia.get(this) ?? 0);
    }
  }
  return origSend.call(this, data, ...rest);
};

interface EdgeStats {
  delivered: number; afterClose: number; gaps: number; replayed: number; nextChunk: number;
  t0: number; ts0: number; late: number; maxLagMs: number; closed: boolean;
  // playout
  burstKey?: string; burstT0: number; burstIdx: number; pending: number[]; agentFrames: number; underruns: number; maxUnderrunMs: number;
}
const edge = new Map<string, EdgeStats>();
const statsOf = (s: TwilioStream): EdgeStats => {
  const id = s.start.customParameters.call_id ?? s.streamSid;
  let st = edge.get(id);
  if (!st) {
    st = { delivered: 0, afterClose: 0, gaps: 0, replayed: 0, nextChunk: 1, t0: 0, ts0: 0, late: 0, maxLagMs: 0, closed: false,
      burstT0: 0, burstIdx: 0, pending: [], agentFrames: 0, underruns: 0, maxUnderrunMs: 0 };
    edge.set(id, st);
  }
  return st;
};
type Inbound = Parameters<TwilioStream['deliver']>[0];
const sp = TwilioStream.prototype;
const { deliver, close, sendMedia, sendMark, sendClear } = sp;
sp.deliver = function (this: TwilioStream, m: Inbound) {
  if (m.event === 'media') {
    const st = statsOf(this);
    const now = performance.now();
    const chunk = Number(m.media.chunk);
    // a chunk seen before is the edge replaying a frame it kept until the session attached (a WebSocket cannot
    // reorder): counted once, the replay apart
    if (chunk < st.nextChunk) { st.replayed++; return deliver.call(this, m); }
    if (st.closed) st.afterClose++; else st.delivered++;
    if (chunk > st.nextChunk) st.gaps += chunk - st.nextChunk;
    st.nextChunk = chunk + 1;
    if (st.t0 === 0) { st.t0 = now; st.ts0 = Number(m.media.timestamp); }
    const lag = now - (st.t0 + (Number(m.media.timestamp) - st.ts0) / SCALE);
    if (lag > LATE_MS) st.late++;
    st.maxLagMs = Math.max(st.maxLagMs, lag);
  }
  return deliver.call(this, m);
};
sp.close = function (this: TwilioStream) { statsOf(this).closed = true; return close.call(this); };
sp.sendMedia = function (this: TwilioStream, f: Uint8Array) { statsOf(this).pending.push(performance.now()); return sendMedia.call(this, f); };
sp.sendMark = function (this: TwilioStream, name: string) {
  const st = statsOf(this);
  const key = /^r(\d+)\/e(\d+)\//.exec(name)?.slice(1).join('/');
  if (key !== undefined && st.pending.length) {
    if (key !== st.burstKey) { st.burstKey = key; st.burstT0 = st.pending[0]; st.burstIdx = 0; }
    for (const t of st.pending) {
      const late = t - (st.burstT0 + st.burstIdx * FRAME_MS); // sent after the carrier would have played it
      if (late > 0) { st.underruns++; st.maxUnderrunMs = Math.max(st.maxUnderrunMs, late); }
      st.burstIdx++; st.agentFrames++;
    }
  }
  st.pending.length = 0;
  return sendMark.call(this, name);
};
sp.sendClear = function (this: TwilioStream) { const st = statsOf(this); st.pending.length = 0; st.burstKey = undefined; return sendClear.call(this); };

// ---------- service, webhook receiver ----------


const hooks = { requests: 0, ids: new Set<string>(), calls: new Set<string>() };
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    hooks.requests++;
    hooks.ids.add(String(req.headers['webhook-id']));
    try { hooks.calls.add((JSON.parse(body) as { call_id: string }).call_id); } catch { /* counted as a request only */ }
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

const schema = process.env.DATABASE_URL ? await freshSchema(process.env.DATABASE_URL) : undefined;
const config = loadConfig({
  SERVICE_MODE: 'simulator', HOST: '127.0.0.1', PORT: '0', DATA_DIR: 'memory', LOG_LEVEL: 'silent', SERVICE_API_KEY: API_KEY,
  SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', DATABASE_URL: schema?.url, REDIS_URL: process.env.REDIS_URL,
  SIM_TIME_SCALE: String(SCALE), SIM_SPEECH: 'tones', SIM_CALLEE_THREAD: CALLEE_THREAD ? 'true' : 'false', MAX_CONCURRENT_CALLS_PER_TENANT: '10000', WEBHOOK_POLL_MS: '200', WEBHOOK_RETRY_BASE_MS: '200',
  CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0',
});
const srv = await startServer(config, { log: createLogger('silent') });
const storage = `${srv.services.db.kind}${schema ? ' (DATABASE_URL, own schema)' : ''}`;

// 555-0100..0199 are reserved for fiction: they reach no one, so no calling hours refuse them at any time of day.
async function dispatch(i: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${srv.baseUrl}/calls/dispatch`, {
      method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ to: `+1415555${String(100 + (i % 100)).padStart(4, '0')}`, agent_id: 'default',
        tools: ['calendar_booking', 'crm_sync'], webhook_url: hookUrl }),
    });
    const body = await res.json() as { id?: string };
    if (res.status === 201 && body.id) return body.id;
    if (attempt >= 3) throw new Error(`dispatch ${res.status} ${JSON.stringify(body)}`);
    await sleep(200);
  }
}

// ---------- run ----------

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
let peakRss = 0;
const rssTimer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 250);
const load0 = loadavg()[0];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const ids: string[] = [];
let rows: Array<{ id: string; status: string; ended_reason: string | null; metrics: CallMetrics | null }> = [];
let callsWallS = 0;
let hooksWallS = 0;
let webhookStates: Record<string, number> = {};
try {
  await Promise.all(Array.from({ length: CALLS }, async (_, i) => {
    await sleep((RAMP_MS * i) / CALLS);
    ids.push(await dispatch(i));
  }));
  // bounded: calls still live CALL_WAIT_S after the last dispatch are hung up (so they end, and their webhook is
  // due), and reported as such
  // a cheap count while calls run (the embedded database shares this thread with the calls); the rows once at the end
  let endedCount = 0;
  const poll = async () => {
    endedCount = Number((await srv.services.db.query<{ n: string }>(
      'SELECT count(*) AS n FROM calls WHERE id = ANY($1) AND status = ANY($2)', [ids, TERMINAL])).rows[0].n);
  };
  const allEnded = () => endedCount === CALLS;
  const until = performance.now() + CALL_WAIT_S * 1000;
  while (!allEnded() && performance.now() < until) { await poll(); if (!allEnded()) await sleep(500); }
  if (!allEnded()) {
    const live = await srv.services.db.query<{ id: string }>('SELECT id FROM calls WHERE id = ANY($1) AND NOT status = ANY($2)', [ids, TERMINAL]);
    for (const r of live.rows) { hungUpByBench.add(r.id); await srv.services.calls.hangup(DEV_TENANT_ID, r.id).catch(() => {}); }
    const hangUntil = performance.now() + 20_000;
    while (!allEnded() && performance.now() < hangUntil) { await poll(); if (!allEnded()) await sleep(500); }
  }
  callsWallS = (performance.now() - t0) / 1000;
  rows = (await srv.services.db.query<typeof rows[number]>('SELECT id, status, ended_reason, metrics FROM calls WHERE id = ANY($1)', [ids])).rows;
  const hooksUntil = performance.now() + HOOK_WAIT_S * 1000;
  for (;;) {
    const st = await srv.services.db.query<{ state: string; n: string }>(
      `SELECT state, count(*) AS n FROM webhook_outbox WHERE call_id = ANY($1) GROUP BY state`, [ids]);
    webhookStates = Object.fromEntries(st.rows.map((r) => [r.state, Number(r.n)]));
    const enqueued = st.rows.reduce((s, r) => s + Number(r.n), 0);
    if ((enqueued >= endedCount && !webhookStates.pending && hooks.calls.size >= enqueued)
      || performance.now() > hooksUntil) break;
    await sleep(500);
  }
  hooksWallS = (performance.now() - t0) / 1000;
} finally {
  clearInterval(rssTimer);
  loop.disable();
}
const cpu = process.cpuUsage(cpu0);
const wallS = (performance.now() - t0) / 1000;
await srv.close();
// a schema drop stuck behind another session's lock must not hold the run (the schema is then left behind)
await Promise.race([schema?.drop().catch(() => {}), sleep(15_000)]);
await new Promise<void>((r) => receiver.close(() => r()));

// ---------- figures ----------

const ended = rows.filter((r) => TERMINAL.includes(r.status));
const byStatus = new Map<string, number>();
for (const r of rows) byStatus.set(`${r.status}/${r.ended_reason ?? '-'}`, (byStatus.get(`${r.status}/${r.ended_reason ?? '-'}`) ?? 0) + 1);
let sentTotal = 0; let deliveredTotal = 0; let counted = 0; let tail = 0; let neverDelivered = 0; let uncounted = 0;
let gaps = 0; let replayed = 0; let late = 0; let maxLag = 0; let underruns = 0; let agentFrames = 0; let maxUnderrun = 0;
let callsWithDrops = 0; let noSessionCalls = 0; let noSessionFrames = 0;
for (const r of rows) {
  const s = sent.get(r.id) ?? 0;
  const e = edge.get(r.id);
  if (!r.metrics) { noSessionCalls++; noSessionFrames += s; continue; } // no media session ran (no media / media_timeout)
  const fin = r.metrics.frames_in;
  const del = e?.delivered ?? 0;
  sentTotal += s; deliveredTotal += del; counted += fin; tail += e?.afterClose ?? 0;
  const lost = Math.max(0, s - del - (e?.afterClose ?? 0));
  const notCounted = Math.max(0, del - fin);
  neverDelivered += lost; uncounted += notCounted;
  if (lost + notCounted + (e?.gaps ?? 0) > 0) callsWithDrops++;
  gaps += e?.gaps ?? 0; replayed += e?.replayed ?? 0; late += e?.late ?? 0; maxLag = Math.max(maxLag, e?.maxLagMs ?? 0);
  underruns += e?.underruns ?? 0; agentFrames += e?.agentFrames ?? 0; maxUnderrun = Math.max(maxUnderrun, e?.maxUnderrunMs ?? 0);
}
const dropped = neverDelivered + uncounted + gaps;
const turns = rows.flatMap((r) => r.metrics?.turns ?? []).map((t) => t.total_ms - t.endpointing_ms).sort((a, b) => a - b);
const p = (q: number) => turns[Math.min(turns.length - 1, Math.max(0, Math.ceil((q / 100) * turns.length) - 1))] ?? NaN;

const table: Array<[string, string]> = [
  ['calls dispatched', String(ids.length)],
  ['ended with a final status', `${ended.length}/${CALLS} (${hungUpByBench.size} hung up by the bench after ${CALL_WAIT_S} s)`],
  ['statuses (status/ended_reason)', [...byStatus].map(([k, v]) => `${k} ${v}`).join(', ')],
  ['calls without a media session (no frames counted)', `${noSessionCalls} (their callees sent ${noSessionFrames} frames, not counted below)`],
  ['frames sent by callees (calls with a session)', String(sentTotal)],
  ['frames received by sessions (frames_in)', String(counted)],
  ['dropped frames', `${dropped} (never delivered ${neverDelivered}, delivered but not counted ${uncounted}, chunk gaps ${gaps}; calls with drops ${callsWithDrops})`],
  ['tail: arrived after the session hung up', String(tail)],
  ['early frames kept by the edge until the session attached (replayed)', String(replayed)],
  [`late inbound frames (> ${LATE_MS} ms behind real time)`, `${late} of ${deliveredTotal} (${((100 * late) / Math.max(1, deliveredTotal)).toFixed(2)}%), max lag ${maxLag.toFixed(0)} ms`],
  ['playout underruns (agent frame sent after its play time)', `${underruns} of ${agentFrames} agent frames (${((100 * underruns) / Math.max(1, agentFrames)).toFixed(2)}%), max ${maxUnderrun.toFixed(0)} ms late`],
  ['turns measured / pipeline-added p50, p99, max', `${turns.length} / ${p(50).toFixed(2)}, ${p(99).toFixed(2)}, ${(turns.at(-1) ?? NaN).toFixed(2)} ms`],
  ['webhooks delivered (unique webhook-id / call id)', `${hooks.ids.size} / ${hooks.calls.size} of ${ended.length} ended calls (${hooks.requests} requests, ${hooks.requests - hooks.ids.size} duplicates); outbox ${JSON.stringify(webhookStates)}`],
  ['wall time (all calls ended / all webhooks)', `${callsWallS.toFixed(1)} s / ${hooksWallS.toFixed(1)} s`],
  ['process CPU (main + audio workers)', `${((cpu.user + cpu.system) / 1e6).toFixed(1)} s = ${(((cpu.user + cpu.system) / 1e3 / (wallS * 1e3)) * 100).toFixed(0)}% of one core over ${wallS.toFixed(1)} s (${cpus().length} cores)`],
  ['peak RSS', `${(peakRss / 2 ** 20).toFixed(0)} MiB`],
  ['event-loop delay p50 / p99 / max', `${(loop.percentile(50) / 1e6).toFixed(1)} / ${(loop.percentile(99) / 1e6).toFixed(1)} / ${(loop.max / 1e6).toFixed(1)} ms`],
  ['load average (1 min) before / after', `${load0.toFixed(1)} / ${loadavg()[0].toFixed(1)}`],
];
const w = Math.max(...table.map(([k]) => k.length));
console.log(`\n${CALLS} concurrent simulated calls: SIM_TIME_SCALE=${SCALE}${SCALE === 1 ? ' (real-time pacing)' : ''}, starts spread over ${RAMP_MS} ms, `
  + `in-process simulator adapters, storage ${storage}, bus ${process.env.REDIS_URL ? 'redis (REDIS_URL)' : 'in-process'}`);
console.log(`| ${'figure'.padEnd(w)} | value |`);
console.log(`|${'-'.repeat(w + 2)}|-------|`);
for (const [k, v] of table) console.log(`| ${k.padEnd(w)} | ${v} |`);
console.log(`targets: no dropped frames: ${dropped === 0 ? 'met' : 'MISSED'}; every webhook delivered: `
  + `${hooks.calls.size >= ended.length && ended.length === CALLS ? 'met' : 'MISSED'}; every call ended: ${ended.length === CALLS ? 'met' : 'MISSED'}`);
process.exit(0);

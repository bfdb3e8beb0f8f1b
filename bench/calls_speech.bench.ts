/**
 * Whole simulated calls with real voices against tone code, side by side in one run: the same cooperative calls
 * through the real service (startServer, HTTP dispatch, callees on real media WebSockets, audio pool), once with
 * SIM_SPEECH=tones (SimVoice) and once with SIM_SPEECH=offline (the offline voice, the grammar ears, callees as
 * personas). Per mode: calls completed, fields understood (name and budget extracted), wall time, process CPU (all
 * threads: main, audio pool, speech threads) and what that CPU buys: whole calls per minute on two busy cores.
 * The offline voice and ears are loaded before the offline run (once per process, like a service that has taken calls).
 *   npm run bench -- calls_speech
 *   CALLS=6 SIM_TIME_SCALE=10 npx tsx bench/calls_speech.bench.ts
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/server.js';
import { warmEars, warmVoice, closeSpeechPool } from '../src/speech/pool.js';

const CALLS = Number(process.env.CALLS ?? 6);
const SCALE = Number(process.env.SIM_TIME_SCALE ?? 10);
const API_KEY = 'bench-service-api-key-0123456789';
const TERMINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row { status: string; ended_reason: string | null; extracted_data: Record<string, unknown>; metrics: { frames_in?: number } | null }

async function run(speech: 'tones' | 'offline') {
  const config = loadConfig({
    SERVICE_MODE: 'simulator', HOST: '127.0.0.1', PORT: '0', DATA_DIR: 'memory', LOG_LEVEL: 'silent', SERVICE_API_KEY: API_KEY,
    SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', SIM_TIME_SCALE: String(SCALE), SIM_SPEECH: speech,
    // recognition is measured here, not judged against a turn deadline on a shared machine
    ADAPTER_TIMEOUT_MS: '15000', CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0',
  });
  const srv = await startServer(config, { log: createLogger('silent') });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${srv.baseUrl}${path}`, { method, headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}) });
    return res.json() as Promise<Record<string, unknown>>;
  };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const ids: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const d = await api('POST', '/calls/dispatch', { to: `+1415555${String(100 + i).padStart(4, '0')}`, agent_id: 'default', tools: ['calendar_booking'] });
    ids.push(String(d.id));
  }
  let rows: Row[] = [];
  for (;;) {
    rows = await Promise.all(ids.map((id) => api('GET', `/calls/${id}`) as Promise<unknown> as Promise<Row>));
    if (rows.every((r) => TERMINAL.includes(r.status))) break;
    await sleep(250);
  }
  const wallS = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  await srv.close();
  const mediaS = rows.reduce((s, r) => s + (r.metrics?.frames_in ?? 0) * 0.02, 0);
  const heard = rows.filter((r) => r.extracted_data.customer_name && r.extracted_data.budget).length;
  return {
    speech, completed: rows.filter((r) => r.ended_reason === 'completed').length, heard, wallS, cpuS, mediaS,
    callsPerTwoCoreMinute: (rows.length / cpuS) * 120,
  };
}

const tones = await run('tones');
await Promise.all([warmVoice(), warmEars()]);
const offline = await run('offline');
await closeSpeechPool();

const f = (n: number, d = 1) => n.toFixed(d);
console.log(`\n${CALLS} cooperative simulated calls per mode at SIM_TIME_SCALE=${SCALE}, one after the other in one process\n`);
console.log('| SIM_SPEECH | calls ended `completed` | name and budget understood | media per call, s | wall, s | CPU, s (all threads) | CPU s per call | whole calls per minute on two busy cores |');
console.log('|---|---|---|---|---|---|---|---|');
for (const r of [tones, offline]) {
  console.log(`| ${r.speech} | ${r.completed}/${CALLS} | ${r.heard}/${CALLS} | ${f(r.mediaS / CALLS)} | ${f(r.wallS)} | ${f(r.cpuS)} | ${f(r.cpuS / CALLS, 2)} | ${f(r.callsPerTwoCoreMinute)} |`);
}
process.exit(0);

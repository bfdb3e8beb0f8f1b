/**
 * Whole simulated calls with real voices against tone code, side by side in one run: the same cooperative calls
 * through the real service (startServer, HTTP dispatch, callees on real media WebSockets, audio pool), once with
 * SIM_SPEECH=tones (SimVoice) and once with SIM_SPEECH=offline (the offline voice, the grammar ears, callees as
 * personas). Per mode: calls completed, the four fields stored right or wrong against what each persona said (its
 * persona follows from the call id), wall time, process CPU (all
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
import { SimulatedCallee, type CalleePersona } from '../src/adapters/sim/callee.js';

const CALLS = Number(process.env.CALLS ?? 6);
const SCALE = Number(process.env.SIM_TIME_SCALE ?? 10);
const API_KEY = 'bench-service-api-key-0123456789';
const TERMINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row { id: string; status: string; ended_reason: string | null; extracted_data: Record<string, unknown>; metrics: { frames_in?: number } | null }

/**
 * What the personas' phrases mean, written here rather than read with the dialog's own parsers, so a value stored
 * from the wrong words counts as wrong: budgets as stored, visit times as a day (0 = Sunday, or 'tomorrow') and an hour.
 */
const BUDGETS: Record<string, string> = {
  'four hundred thousand dollars': '400000 USD', 'fifty lakh rupees': '5000000 INR', 'one point two crore rupees': '12000000 INR',
  'eighty lakh rupees': '8000000 INR', 'two hundred fifty thousand dollars': '250000 USD',
};
const SLOTS: Record<string, { day: number | 'tomorrow'; time: string }> = {
  'tomorrow at ten a m': { day: 'tomorrow', time: '10:00' }, 'next Tuesday at three p m': { day: 2, time: '15:00' },
  'Friday at eleven thirty a m': { day: 5, time: '11:30' }, 'tomorrow at four p m': { day: 'tomorrow', time: '16:00' },
  'next Monday at two p m': { day: 1, time: '14:00' },
};
const FIELDS = ['customer_name', 'intent', 'budget', 'scheduled_slot'] as const;
type Outcome = 'right' | 'wrong' | 'missing';

/** A stored field against what the persona said (a slot in the call's own offset: its local day and time). */
function judge(field: (typeof FIELDS)[number], stored: unknown, p: CalleePersona, startedMs: number): Outcome {
  if (stored === undefined || stored === null || stored === '') return 'missing';
  const v = String(stored);
  if (field === 'customer_name') return v.toLowerCase() === p.name.toLowerCase() ? 'right' : 'wrong';
  const need = (x: string) => x.toLowerCase().replace(/^an? /, ''); // "three bedroom villa" is what "a three bedroom villa" asks
  if (field === 'intent') return need(v) === need(p.intent) ? 'right' : 'wrong';
  if (field === 'budget') return BUDGETS[p.budget] === v ? 'right' : 'wrong';
  const want = SLOTS[p.slot];
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):\d{2}([+-]\d{2}):(\d{2})$/.exec(v);
  if (!want || !m) return 'wrong';
  const offsetMs = Math.sign(Number(m[3])) * (Math.abs(Number(m[3])) * 60 + Number(m[4])) * 60_000;
  const today = new Date(startedMs + offsetMs).toISOString().slice(0, 10);
  const date = new Date(`${m[1]}T00:00:00Z`);
  const daysAhead = Math.round((date.getTime() - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
  const dayRight = want.day === 'tomorrow' ? daysAhead === 1 : date.getUTCDay() === want.day && daysAhead >= 0 && daysAhead <= 7;
  return dayRight && m[2] === want.time ? 'right' : 'wrong';
}

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
  const startedMs = Date.now();
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
  // why a call that did not complete escalated, from its stored live items
  const escalations = new Map<string, string[]>();
  for (const r of rows) {
    if (r.ended_reason === 'completed') continue;
    const items = (await api('GET', `/calls/${r.id}/events?limit=500`)).data as Array<{ type: string; reason?: string }>;
    escalations.set(r.id, items.filter((e) => e.type === 'escalation').map((e) => String(e.reason)));
  }
  await srv.close();
  const mediaS = rows.reduce((s, r) => s + (r.metrics?.frames_in ?? 0) * 0.02, 0);
  const outcomes = FIELDS.map((f) => rows.map((r) => judge(f, r.extracted_data[f], new SimulatedCallee(r.id, 'cooperative').persona, startedMs)));
  const count = (o: Outcome) => outcomes.map((per) => per.filter((x) => x === o).length);
  const wrongs = FIELDS.flatMap((f, i) => rows.filter((_, j) => outcomes[i][j] === 'wrong').map((r) => {
    const p = new SimulatedCallee(r.id, 'cooperative').persona;
    const said = { customer_name: p.name, intent: p.intent, budget: p.budget, scheduled_slot: p.slot }[f];
    return `${speech}: ${f} stored ${JSON.stringify(r.extracted_data[f])} for "${said}"`;
  }));
  return {
    speech, completed: rows.filter((r) => r.ended_reason === 'completed').length, others: otherEndings(rows, escalations), right: count('right'), wrong: count('wrong'), wrongs, wallS, cpuS, mediaS,
    callsPerTwoCoreMinute: (rows.length / cpuS) * 120,
  };
}

/** Endings other than `completed` with the escalation behind each, counted: "adapter_failure (adapter_failure:stt:timeout) ×2". */
function otherEndings(rows: Row[], escalations: Map<string, string[]>): string {
  const n = new Map<string, number>();
  for (const r of rows) {
    if (r.ended_reason === 'completed') continue;
    const why = escalations.get(r.id)?.join(' + ');
    const key = `${r.ended_reason ?? r.status}${why ? ` (${why})` : ''}`;
    n.set(key, (n.get(key) ?? 0) + 1);
  }
  return [...n].map(([k, v]) => `${k} ×${v}`).join(', ') || '-';
}

const tones = await run('tones');
await Promise.all([warmVoice(), warmEars()]);
const offline = await run('offline');
await closeSpeechPool();

const f = (n: number, d = 1) => n.toFixed(d);
console.log(`\n${CALLS} cooperative simulated calls per mode at SIM_TIME_SCALE=${SCALE}, one after the other in one process\n`);
console.log('| SIM_SPEECH | calls ended `completed` | other endings | name / need / budget / visit stored right (wrong) | media per call, s | wall, s | CPU, s (all threads) | CPU s per call | whole calls per minute on two busy cores |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of [tones, offline]) {
  const fields = r.right.map((n, i) => `${n}${r.wrong[i] ? ` (${r.wrong[i]})` : ''}`).join(' / ');
  console.log(`| ${r.speech} | ${r.completed}/${CALLS} | ${r.others} | ${fields} of ${CALLS} | ${f(r.mediaS / CALLS)} | ${f(r.wallS)} | ${f(r.cpuS)} | ${f(r.cpuS / CALLS, 2)} | ${f(r.callsPerTwoCoreMinute)} |`);
}
for (const w of [...tones.wrongs, ...offline.wrongs]) console.log(`wrong: ${w}`);
process.exit(0);

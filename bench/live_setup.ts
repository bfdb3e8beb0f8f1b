/**
 * What the live-mode benches share: the fakes process, the service configured against it, dispatching calls and
 * collecting their rows, and a clear stop when a provider the bench needs is not implemented on this branch.
 */
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { isCarrier } from '../src/carriers/index.js';
import { DIALOG_PROVIDERS, STT_PROVIDERS, TTS_PROVIDERS } from '../src/providers/index.js';
import { startServer } from '../src/server.js';
import { DEV_TENANT_ID } from '../src/services.js';
import type { CallMetrics } from '../src/calls/types.js';
import type { FakesProcess } from './fakes/launch.js';

export const API_KEY = 'bench-service-api-key-0123456789';
export const TERMINAL = ['completed', 'no_answer', 'busy', 'failed', 'canceled'];
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** the keys both sides use: the service sends them, the fakes check them */
export const FAKE_KEYS: Record<string, string> = {
  TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000b3c', TWILIO_AUTH_TOKEN: 'bench-twilio-auth-token', TWILIO_FROM_NUMBER: '+14155550199',
  PLIVO_AUTH_ID: 'MABENCH0000000000000', PLIVO_AUTH_TOKEN: 'bench-plivo-auth-token', PLIVO_FROM_NUMBER: '+14155550198',
  EXOTEL_ACCOUNT_SID: 'benchacct1', EXOTEL_API_KEY: 'bench-exotel-key', EXOTEL_API_TOKEN: 'bench-exotel-token', EXOTEL_CALLER_ID: '08047112233', EXOTEL_APP_ID: '424242', EXOTEL_HOOK_SECRET: 'bench-exotel-hook-secret',
  DEEPGRAM_API_KEY: 'bench-deepgram-key', OPENAI_API_KEY: 'bench-openai-key', ELEVENLABS_API_KEY: 'bench-elevenlabs-key', ELEVENLABS_VOICE_ID: 'benchvoice',
};

export interface LiveStack { carrier: string; stt: string; dialog: string; tts: string }

/** the providers of `s` not wired in src/providers/index.ts, as the settings that name them */
export function missingProviders(s: LiveStack): string[] {
  return [
    !isCarrier(s.carrier) && `CARRIER=${s.carrier}`, !(s.stt in STT_PROVIDERS) && `STT_PROVIDER=${s.stt}`,
    s.dialog !== 'scripted' && !(s.dialog in DIALOG_PROVIDERS) && `DIALOG_PROVIDER=${s.dialog}`, !(s.tts in TTS_PROVIDERS) && `TTS_PROVIDER=${s.tts}`,
  ].filter((x): x is string => Boolean(x));
}

export const notImplemented = (missing: string[]) => `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not implemented here `
  + '(no entry in src/providers/index.ts or src/carriers/index.ts): this bench needs the live providers merged first.';

/** Stops the bench, saying what is missing, when a provider it needs is not implemented on this branch. */
export function requireProviders(s: LiveStack): void {
  const missing = missingProviders(s);
  if (!missing.length) return;
  console.error(notImplemented(missing));
  process.exit(2);
}

/** a port free now, so PUBLIC_BASE_URL can name it before the service listens */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

/** The service in live mode, every provider URL pointing at the fakes. */
export function liveConfig(fakes: FakesProcess, port: number, stack: LiveStack, extra: Record<string, string> = {}): Config {
  return loadConfig(liveEnv(fakes, port, stack, extra));
}

/** The environment of liveConfig, for a service started as a process of its own (src/main.ts). */
export function liveEnv(fakes: FakesProcess, port: number, stack: LiveStack, extra: Record<string, string> = {}): Record<string, string | undefined> {
  const f = fakes.baseUrl;
  return {
    SERVICE_MODE: 'live', HOST: '127.0.0.1', PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}/v1`, DATA_DIR: 'memory', LOG_LEVEL: 'silent',
    SERVICE_API_KEY: API_KEY, SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', SERVICE_DEV_PASSWORD: 'bench-dev-password-0000',
    DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL,
    MAX_CONCURRENT_CALLS_PER_TENANT: '10000', CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', INBOUND_WEBHOOKS: 'unsigned',
    CARRIER: stack.carrier, STT_PROVIDER: stack.stt, DIALOG_PROVIDER: stack.dialog, TTS_PROVIDER: stack.tts, ...FAKE_KEYS,
    TWILIO_API_BASE_URL: f, PLIVO_API_BASE_URL: f, EXOTEL_API_BASE_URL: f,
    DEEPGRAM_API_URL: `ws://127.0.0.1:${fakes.port}/v1/listen`, OPENAI_BASE_URL: `${f}/v1`, ELEVENLABS_API_URL: f,
    ...extra,
  };
}

/** the environment of the fakes process: the keys, and where the Exotel applet asks for its stream URL (with the flow's secret) */
export function fakesEnv(port: number): Record<string, string> {
  const applet = `http://127.0.0.1:${port}/v1/${process.env.EXOTEL_VOICEBOT_PATH ?? 'carriers/exotel/stream'}?secret=${FAKE_KEYS.EXOTEL_HOOK_SECRET}`;
  return { ...FAKE_KEYS, FAKE_EXOTEL_VOICEBOT_URL: process.env.FAKE_EXOTEL_VOICEBOT_URL ?? applet };
}

export type Server = Awaited<ReturnType<typeof startServer>>;
export const startService = (config: Config) => startServer(config, { log: createLogger('silent') });

export interface CallRow { id: string; status: string; ended_reason: string | null; metrics: CallMetrics | null }

/**
 * Dispatches `n` calls (starts spread over rampMs), hangs each up after holdS seconds, and waits for every one to
 * end; returns their rows and the wall time. 555-0100..0199 are fiction numbers: no calling hours refuse them.
 */
export async function runCalls(srv: Server, n: number, holdS: number, rampMs: number): Promise<{ rows: CallRow[]; wallS: number }> {
  const t0 = performance.now();
  const ids: string[] = [];
  const hangups: Array<Promise<void>> = [];
  const ramp = n > 1 ? rampMs : 0;
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    await sleep((ramp * i) / n);
    const id = await dispatch(srv, i);
    ids.push(id);
    hangups.push(sleep(holdS * 1000).then(() => srv.services.calls.hangup(DEV_TENANT_ID, id).then(() => {}, () => {})));
  }));
  await Promise.all(hangups);
  let rows: CallRow[] = [];
  for (let i = 0; i < 300; i++) {
    rows = (await srv.services.db.query<CallRow>('SELECT id, status, ended_reason, metrics FROM calls WHERE id = ANY($1)', [ids])).rows;
    if (rows.length === n && rows.every((r) => TERMINAL.includes(r.status))) break;
    await sleep(200);
  }
  return { rows, wallS: (performance.now() - t0) / 1000 };
}

/** Dispatches a call to a number reserved for fiction (555-0100..0199: no calling hours refuse it), retrying 3 times. */
export async function dispatch(srv: Pick<Server, 'baseUrl'>, i: number): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${srv.baseUrl}/calls/dispatch`, {
      method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ to: `+1415555${String(100 + (i % 100)).padStart(4, '0')}`, agent_id: 'default', tools: ['calendar_booking', 'crm_sync'] }),
    });
    const body = await res.json() as { id?: string };
    if (res.status === 201 && body.id) return body.id;
    if (attempt >= 3) throw new Error(`dispatch ${res.status} ${JSON.stringify(body)}`);
    await sleep(200);
  }
}

export const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : NaN);
export const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : '-');
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');

/** a markdown table */
export function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

/** status/ended_reason counts, for the line under a table */
export function statuses(rows: CallRow[]): string {
  const m = new Map<string, number>();
  for (const r of rows) m.set(`${r.status}/${r.ended_reason ?? '-'}`, (m.get(`${r.status}/${r.ended_reason ?? '-'}`) ?? 0) + 1);
  return [...m].map(([k, v]) => `${k} ${v}`).join(', ');
}

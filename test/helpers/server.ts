/**
 * Starts a real service on 127.0.0.1:0 for a test file. Storage follows the environment:
 * DATABASE_URL set (CI) -> PostgreSQL in a fresh schema of its own, so test files never see each other's rows;
 * otherwise the embedded PGlite in memory. REDIS_URL set -> Redis bus, otherwise in-process.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';

export const DEV_EMAIL = 'dev@example.com';
export const DEV_PASSWORD = 'dev-password-for-tests';
export const API_KEY = 'test-service-api-key-0123456789';

/** Creates an empty schema and returns a DATABASE_URL whose connections use it. */
export async function freshSchemaUrl(baseUrl: string): Promise<string> {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const u = new URL(baseUrl);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export interface TestServerOptions {
  env?: Record<string, string | undefined>;
  /** reuse a database URL (e.g. to restart on the same data, or share one between two instances) */
  databaseUrl?: string;
  /** where log lines go (default: a silent logger unless TEST_LOG_LEVEL is set) */
  logStream?: NodeJS.WritableStream;
  /** the clock of dispatch gates (default: a fixed instant inside calling hours in India, see GATE_DAY) */
  gateClock?: () => Date;
}

/** 11:30 in India, 06:00 UTC: Indian numbers pass the calling-hours gate whenever the suite runs (US test numbers
 *  are fiction and ungated). A test of the gate itself sets its own clock. */
export const GATE_DAY = new Date('2026-11-24T06:00:00Z');

export async function startTestServer(opts: TestServerOptions = {}): Promise<RunningServer & { config: Config; databaseUrl?: string }> {
  const baseDb = process.env.DATABASE_URL;
  const databaseUrl = opts.databaseUrl ?? (baseDb ? await freshSchemaUrl(baseDb) : undefined);
  const config = loadConfig({
    SERVICE_MODE: 'simulator',
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: 'memory',
    SERVICE_DEV_EMAIL: DEV_EMAIL,
    SERVICE_DEV_PASSWORD: DEV_PASSWORD,
    SERVICE_API_KEY: API_KEY,
    SERVICE_JWT_SECRET: 'test-jwt-secret-that-is-long-enough-000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // tests receive webhooks on loopback only; every other range stays refused (src/net/address_policy.ts)
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    // simulated calls speak tone code unless a file asks for real speech (SIM_SPEECH=offline, the default of the
    // service): real speech triples a call's CPU, and the suite places hundreds of calls whose speech is not under test
    SIM_SPEECH: 'tones',
    DATABASE_URL: databaseUrl,
    REDIS_URL: process.env.REDIS_URL,
    // test files share one Redis: each deployment (instances sharing a database) counts its rate limits apart
    REDIS_KEY_PREFIX: `test-${createHash('sha256').update(databaseUrl ?? randomBytes(8).toString('hex')).digest('hex').slice(0, 12)}:`,
    // live mode refuses to start with inbound webhooks unsigned unless told: tests of other parts in live mode say so
    ...(opts.env?.SERVICE_MODE === 'live' && !opts.env.SERVICE_WEBHOOK_SECRET && !opts.env.INBOUND_WEBHOOKS ? { INBOUND_WEBHOOKS: 'unsigned' } : {}),
    ...opts.env,
  });
  const server = await startServer(config, { log: createLogger(config.LOG_LEVEL, opts.logStream) });
  server.services.calls.clock = opts.gateClock ?? (() => GATE_DAY);
  return Object.assign(server, { config, databaseUrl });
}

/** Small fetch wrapper: JSON in, {status, headers, body} out. */
export async function api(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) { body = JSON.stringify(opts.body); headers['content-type'] ??= 'application/json'; }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let json: any;
  try { json = text ? JSON.parse(text) : undefined; } catch { json = text; }
  return { status: res.status, headers: res.headers, body: json };
}

/** Polls GET /calls/:id until the call reaches a final status; throws when it has not after timeoutMs. */
export async function waitForCallEnd(base: string, id: string, headers: Record<string, string>,
  { timeoutMs = 60_000, pollMs = 100 }: { timeoutMs?: number; pollMs?: number } = {}) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await api(base, 'GET', `/calls/${id}`, { headers });
    if (['completed', 'no_answer', 'busy', 'failed', 'canceled'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`call ${id} still ${r.body.status} after ${timeoutMs} ms (hanging?)`);
    await new Promise((res) => setTimeout(res, pollMs));
  }
}

export async function login(base: string, email = DEV_EMAIL, password = DEV_PASSWORD): Promise<string> {
  const r = await api(base, 'POST', '/auth/login', { body: { email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.access_token;
}

/**
 * Shared set-up of the stream benches: a real service (Redis bus: REDIS_URL, else a throwaway redis-server on a
 * free port, else the in-process bus, said so in the output), storage per DATABASE_URL or in-memory PGlite, and
 * a worker thread holding the WebSocket listeners.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startServer, type RunningServer } from '../src/server.js';
import { newId } from '../src/ids.js';
import { DEV_TENANT_ID } from '../src/services.js';

export const API_KEY = 'bench-service-api-key-0123456789';

async function freePort(): Promise<number> {
  return new Promise((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); }); });
}

async function ownRedis(): Promise<{ url: string; proc: ChildProcess } | undefined> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const ok = await new Promise<boolean>((resolve) => { proc.once('error', () => resolve(false)); setTimeout(() => resolve(proc.exitCode === null), 300); });
  return ok ? { url: `redis://127.0.0.1:${port}`, proc } : undefined;
}

export interface BenchEnv { srv: RunningServer; busLabel: string; close(): Promise<void> }

export async function startBenchServer(): Promise<BenchEnv> {
  const own = process.env.REDIS_URL ? undefined : await ownRedis();
  const redisUrl = process.env.REDIS_URL ?? own?.url;
  const config = loadConfig({
    HOST: '127.0.0.1', PORT: '0', DATA_DIR: 'memory', LOG_LEVEL: 'silent', SERVICE_API_KEY: API_KEY,
    SERVICE_JWT_SECRET: 'bench-jwt-secret-that-is-long-enough-0000', DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: redisUrl,
  });
  const srv = await startServer(config, { log: createLogger('silent') });
  const busLabel = redisUrl ? `redis (${process.env.REDIS_URL ? 'REDIS_URL' : 'own redis-server'})` : 'in-process (no redis-server found)';
  return { srv, busLabel, async close() { await srv.close(); own?.proc.kill('SIGKILL'); } };
}

export async function insertCall(srv: RunningServer): Promise<string> {
  const id = newId('call');
  await srv.services.db.query(
    `INSERT INTO calls (id, tenant_id, agent, to_number, language, status) VALUES ($1, $2, '{}'::jsonb, '+14155550100', 'en-US', 'in_progress')`,
    [id, DEV_TENANT_ID]);
  return id;
}

/** The listener worker, with a promise-returning request(). */
export function listenerWorker() {
  const worker = new Worker(new URL('./stream_listeners.worker.mjs', import.meta.url));
  const request = <T = any>(msg: unknown): Promise<T> => new Promise((resolve, reject) => {
    worker.once('message', (m) => (m?.error ? reject(new Error(m.error)) : resolve(m)));
    worker.postMessage(msg);
  });
  return { request, stop: () => worker.terminate() };
}

export const streamUrl = (srv: RunningServer, callId: string) => `${srv.baseUrl.replace(/^http/, 'ws')}/calls/${callId}/stream`;
export const nowMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function table(rows: Array<Record<string, string | number>>): void {
  console.table(rows);
}

/** A throwaway redis-server on a free port, owned by one test: it may be killed and restarted at will. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address() as { port: number }; s.close(() => resolve(port)); });
  });
}

export const haveRedisServer = async (): Promise<boolean> =>
  new Promise((resolve) => { const p = spawn('redis-server', ['--version']); p.on('error', () => resolve(false)); p.on('exit', (c) => resolve(c === 0)); });

export class OwnRedis {
  #proc?: ChildProcess;
  private constructor(readonly port: number) {}
  get url() { return `redis://127.0.0.1:${this.port}`; }

  static async start(): Promise<OwnRedis> {
    const r = new OwnRedis(await freePort());
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    const proc = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' });
    this.#proc = proc;
    // Ready when it answers PING.
    for (let i = 0; i < 100; i++) {
      const c = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      c.on('error', () => {});
      try { await c.connect(); await c.ping(); c.disconnect(); return; } catch { c.disconnect(); }
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error(`redis-server on ${this.port} did not start`);
  }

  /** SIGKILL: an abrupt outage, as when the Redis host dies. */
  async kill(): Promise<void> {
    const p = this.#proc;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((res) => { p.once('exit', () => res()); p.kill('SIGKILL'); });
  }
}

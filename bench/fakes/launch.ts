/** Starts bench/fakes/server.ts in its own process and resolves once it listens; stop() ends it. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LineStats } from './phone.js';

export interface FakesProcess { port: number; baseUrl: string; pid: number; stats(): Promise<FakesStats>; reset(): Promise<void>; stop(): Promise<void> }

export interface FakesStats {
  settings: Record<string, number | string>;
  /** the fakes process's CPU ms since the last reset */
  cpuMs: number;
  carriers: Record<'twilio' | 'plivo' | 'exotel', LineStats>;
  stt: Record<string, number>; chat: Record<string, number>; tts: Record<string, number>;
  callbacks: Record<string, Array<{ url: string; status: number; params: Record<string, string> }>>;
}

const SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'server.ts');

export function startFakes(env: Record<string, string | undefined> = {}): Promise<FakesProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: { ...process.env, ...env, FAKES_EXIT_WITH_STDIN: '1' }, stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (why: string) => reject(new Error(`the fakes process did not start: ${why}`));
    child.on('error', (err) => fail(err.message));
    child.on('exit', (code) => fail(`exited with ${code}`));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /FAKES_READY (\d+)/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      const port = Number(m[1]);
      const baseUrl = `http://127.0.0.1:${port}`;
      resolve({
        port, baseUrl, pid: child.pid!,
        stats: async () => (await (await fetch(`${baseUrl}/fakes/stats`)).json()) as FakesStats,
        reset: async () => { await fetch(`${baseUrl}/fakes/reset`, { method: 'POST' }); },
        stop: () => new Promise<void>((r) => {
          if (child.exitCode !== null) { r(); return; }
          child.once('exit', () => r());
          child.kill('SIGTERM');
        }),
      });
    });
  });
}

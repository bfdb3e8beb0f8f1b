/**
 * A PostgreSQL server of a test's own (its own data folder under a temp dir, its own port), which the test can
 * stop and start: initdb and pg_ctl from /usr/lib/postgresql/<version>/bin, run as the `postgres` user when the
 * test runs as root (PostgreSQL refuses to run as root).
 */
import { execFile } from 'node:child_process';
import { chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The bin folder holding initdb and pg_ctl, or undefined when PostgreSQL is not installed. */
export async function findPgBin(): Promise<string | undefined> {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = (await readdir(root)).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, 'bin')).find((b) => existsSync(join(b, 'initdb')) && existsSync(join(b, 'pg_ctl')));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); });
    s.on('error', reject);
  });
}

export interface PgServer { url: string; stop(): Promise<void>; start(): Promise<void>; destroy(): Promise<void> }

export async function startPgServer(bin: string): Promise<PgServer> {
  const dir = await mkdtemp(join(tmpdir(), 'vc-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const gid = (await run('id', ['-g', 'postgres'])).stdout;
    await chown(dir, Number(stdout), Number(gid));
  }
  const pg = (tool: string, args: string[]) => (asRoot
    ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args])
    : run(join(bin, tool), args));
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => { await pg('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start']); };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: async () => { await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']); },
    destroy: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}


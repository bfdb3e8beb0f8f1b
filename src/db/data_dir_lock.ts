/**
 * One process at a time on an embedded data folder. PGlite has no locking of its own: two processes opening one
 * DATA_DIR each wrote their own copy (a tenant created by `npm run create-tenant` beside the running service was
 * never seen by it and was gone after a restart). The owner holds DATA_DIR/voicecall.lock, created exclusively
 * (O_EXCL) and holding its pid and host; another process finds it and stops with a clear message. A lock left by a
 * process that died (its pid no longer runs on this host) is taken over; taking over is itself serialised by a
 * second exclusive file, so two processes finding the same stale lock cannot both win.
 */
import { hostname } from 'node:os';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const LOCK_FILE = 'voicecall.lock';

/** PGlite with its files under DATA_DIR: the one case that takes the lock (not DATA_DIR=memory, not PostgreSQL). */
export const usesEmbeddedDataDir = (c: { DATABASE_URL?: string; DATA_DIR: string }) => !c.DATABASE_URL && c.DATA_DIR !== 'memory';

export interface LockOwner { pid: number; host: string; since?: string }

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(readonly dir: string, readonly lockPath: string, readonly owner: LockOwner) {
    super(`DATA_DIR ${dir} is in use by another process (pid ${owner.pid} on ${owner.host}${owner.since ? `, since ${owner.since}` : ''}): `
      + 'the embedded database can be opened by one process at a time');
  }
}

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours; idempotent. */
  release(): Promise<void>;
}

/** lock files this process holds (a second opening from the same process is refused too) */
const held = new Map<string, string>();
let exitHookSet = false;

/** How long a lock file may stay empty or unreadable (its creator is writing it) before it counts as stale, ms. */
const UNREADABLE_GRACE_MS = 1000;

export async function lockDataDir(dir: string): Promise<DataDirLock> {
  await mkdir(dir, { recursive: true });
  const path = resolve(join(dir, LOCK_FILE));
  const me: LockOwner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  if (held.has(path)) throw new DataDirLockedError(dir, path, me);
  const content = `${JSON.stringify(me)}\n`;
  let unreadableSince: number | undefined;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await createExclusive(path, content)) {
      held.set(path, content);
      setExitHook();
      return { path, release: () => release(path) };
    }
    const seen = await readLock(path);
    if (seen === undefined) continue; // removed meanwhile: try again
    const owner = parseOwner(seen);
    if (!owner) {
      // just created by another process that has not written it yet, or left empty by one that crashed right then
      unreadableSince ??= Date.now();
      if (Date.now() - unreadableSince < UNREADABLE_GRACE_MS) { await pause(20); continue; }
    } else if (isRunning(owner)) throw new DataDirLockedError(dir, path, owner);
    await breakStale(path, seen);
  }
  throw new Error(`could not take ${path}: it keeps changing (several processes starting on ${dir}?)`);
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  let fh;
  try { fh = await open(path, 'wx', 0o644); } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try { await fh.writeFile(content); await fh.sync(); } finally { await fh.close(); }
  return true;
}

const readLock = (path: string) => readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
  if (err.code === 'ENOENT') return undefined;
  throw err;
});

function parseOwner(text: string): LockOwner | undefined {
  try {
    const o = JSON.parse(text) as Partial<LockOwner>;
    return Number.isSafeInteger(o.pid) && (o.pid as number) > 0 && typeof o.host === 'string' ? o as LockOwner : undefined;
  } catch { return undefined; }
}

/**
 * Whether the owner may still run. Another host's process cannot be checked: it counts as running. Our own pid in
 * a file we do not hold is a previous life of this pid (a container restarted with the same pid): stale.
 */
function isRunning(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return false;
  try { process.kill(owner.pid, 0); return true; } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, but another user's
  }
}

/** Removes a stale lock whose content is still `stale`, holding `<lock>.takeover` meanwhile. */
async function breakStale(path: string, stale: string): Promise<void> {
  const mutex = `${path}.takeover`;
  if (!(await createExclusive(mutex, `${JSON.stringify({ pid: process.pid, host: hostname() })}\n`))) {
    // another process is taking over: wait for it, unless it died doing so
    const other = parseOwner((await readLock(mutex)) ?? '');
    if (other && !isRunning(other)) await unlink(mutex).catch(() => {});
    await pause(20);
    return;
  }
  try {
    if ((await readLock(path)) === stale) await unlink(path).catch(() => {});
  } finally {
    await unlink(mutex).catch(() => {});
  }
}

async function release(path: string): Promise<void> {
  const mine = held.get(path);
  if (mine === undefined) return;
  held.delete(path);
  if ((await readLock(path).catch(() => undefined)) === mine) await unlink(path).catch(() => {});
}

/** A process that exits without closing (an uncaught error, process.exit) still leaves no lock behind. */
function setExitHook(): void {
  if (exitHookSet) return;
  exitHookSet = true;
  process.on('exit', () => {
    for (const path of held.keys()) { try { unlinkSync(path); } catch { /* gone already */ } }
    held.clear();
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

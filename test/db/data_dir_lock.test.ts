/**
 * The data-folder lock: one process at a time on an embedded DATA_DIR. A second taker (another process, or the same
 * process again) is refused naming the owner; a lock left by a dead process is taken over, by exactly one of
 * several processes that find it at once.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile, access } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from '../../src/db/data_dir_lock.js';

const root = await mkdtemp(join(tmpdir(), 'vc-lock-'));
t.teardown(() => rm(root, { recursive: true, force: true }));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const taker = fileURLToPath(new URL('./fixtures/take_lock.ts', import.meta.url));
let n = 0;
const freshDir = () => join(root, `d${n++}`);
const exists = (p: string) => access(p).then(() => true, () => false);

/** The pid of a process that has exited (the kernel may reuse it later, but not within this test). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return child.pid!;
}

t.test('taken, refused while held (also to this process), released', async (t) => {
  const dir = freshDir();
  const lock = await lockDataDir(dir);
  const owner = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
  t.match(owner, { pid: process.pid, host: hostname() });
  const err = await lockDataDir(dir).catch((e) => e);
  t.ok(err instanceof DataDirLockedError, 'a second taking is refused');
  t.match(err.message, new RegExp(`in use by another process \\(pid ${process.pid}`));
  await lock.release();
  await lock.release();
  t.notOk(await exists(join(dir, LOCK_FILE)), 'the file is gone');
  await (await lockDataDir(dir)).release();
});

t.test('a running owner holds it; another host\'s owner is never judged dead', async (t) => {
  const dir = freshDir();
  const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  t.teardown(() => { sleeper.kill(); });
  await (await lockDataDir(dir)).release(); // creates the folder
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, host: hostname() }));
  const err = await lockDataDir(dir).catch((e) => e);
  t.ok(err instanceof DataDirLockedError);
  t.equal(err.owner.pid, sleeper.pid);
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), host: 'another-host.example' }));
  t.ok((await lockDataDir(dir).catch((e) => e)) instanceof DataDirLockedError, 'another host');
});

t.test('stale locks are taken over: a dead pid, this pid from a previous life, an empty file', async (t) => {
  for (const [name, content] of [
    ['dead pid', JSON.stringify({ pid: await deadPid(), host: hostname() })],
    ['own pid, not held', JSON.stringify({ pid: process.pid, host: hostname() })],
    ['empty (its creator died before writing)', ''],
  ] as const) {
    const dir = freshDir();
    await (await lockDataDir(dir)).release();
    await writeFile(join(dir, LOCK_FILE), content);
    const lock = await lockDataDir(dir);
    t.match(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')), { pid: process.pid }, name);
    await lock.release();
  }
});

t.test('several processes finding one stale lock: exactly one takes it', async (t) => {
  const dir = freshDir();
  await (await lockDataDir(dir)).release();
  await writeFile(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), host: hostname() }));
  const children = Array.from({ length: 4 }, () => {
    const c = spawn(tsx, [taker, dir, '3000'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => { out += d; });
    return once(c, 'exit').then(() => out.trim());
  });
  const outcomes = await Promise.all(children);
  t.same(outcomes.filter((o) => o === 'won').length, 1, `one winner (${outcomes.join(', ')})`);
  t.same(outcomes.filter((o) => o === 'lost').length, 3);
  t.notOk(await exists(join(dir, LOCK_FILE)), 'the winner released it');
});

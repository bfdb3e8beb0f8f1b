/** `npm start`'s entry point serves on the embedded default and exits 0 on SIGTERM; bad config exits 2 naming the key. */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function run(env: Record<string, string>) {
  // node with tsx's loader, as `npm start` runs it: the tsx CLI would stand between the signal and the service, and
  // it SIGKILLs a child that does not confirm a relayed signal within 30 ms (a loaded machine: exit 143)
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return { child, output: () => out };
}

t.test('starts, serves, and stops gracefully on SIGTERM', async (t) => {
  const { child, output } = run({ PORT: '0' });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  // a cold start of the embedded default (PGlite, audio pool) took 38 s on a machine at load 25
  const deadline = Date.now() + 100_000;
  while (!/voicecall listening/.test(output()) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  const line = output().split('\n').find((l) => l.includes('voicecall listening'));
  t.ok(line, 'listening line logged');
  const base = JSON.parse(line!).baseUrl;
  t.equal((await fetch(base + '/health')).status, 200);
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit');
  t.match(output(), /shutting down/);
});

t.test('a bad setting stops start-up naming the key', async (t) => {
  const { child, output } = run({ PORT: 'eighty' });
  const [code] = await once(child, 'exit');
  t.equal(code, 2);
  t.match(output(), /PORT/);
  t.notMatch(output(), /    at /, 'no stack trace');
});

/**
 * INSTANCES (src/cluster.ts): one process per instance behind one port with node:cluster, only on PostgreSQL and
 * Redis; the embedded default refuses it (exit 2, naming what is missing).
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { clusterRefusal, instancesWanted } from '../../src/cluster.js';
import { freshSchemaUrl } from '../helpers/server.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
t.setTimeout(300_000);

function run(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root,
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory', LOG_LEVEL: 'info', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  return { child, output: () => out };
}

t.test('INSTANCES values', async (t) => {
  t.equal(instancesWanted(undefined, 8), undefined);
  t.equal(instancesWanted('1', 8), undefined, 'one: the ordinary process');
  t.equal(instancesWanted('auto', 8), 8);
  t.equal(instancesWanted('auto', 1), undefined, 'auto on one core: one process');
  t.equal(instancesWanted('3', 8), 3);
  for (const bad of ['0', '-2', 'two', '1000', '2.5']) t.throws(() => instancesWanted(bad, 8), /INSTANCES must be auto or a number/, bad);
  t.match(clusterRefusal({ DATABASE_URL: 'postgres://x' }), /requires REDIS_URL, SERVICE_JWT_SECRET/);
  t.equal(clusterRefusal({ DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x', SERVICE_JWT_SECRET: 's' }), undefined);
});

t.test('the embedded default refuses INSTANCES: exit 2 naming what is missing', async (t) => {
  const { child, output } = run({ INSTANCES: 'auto' });
  const [code] = await once(child, 'exit');
  t.equal(code, 2);
  t.match(output(), /INSTANCES requires DATABASE_URL, REDIS_URL, SERVICE_JWT_SECRET/);
});

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL' : false;
t.test('INSTANCES=2 on PostgreSQL and Redis: two instances on one port; SIGTERM stops both', { skip }, async (t) => {
  const db = await freshSchemaUrl(process.env.DATABASE_URL!);
  const { child, output } = run({ INSTANCES: '2', DATABASE_URL: db, REDIS_URL: process.env.REDIS_URL!, REDIS_KEY_PREFIX: `test-cluster-${process.pid}:`,
    SERVICE_JWT_SECRET: 'cluster-test-secret-that-is-long-enough', CAMPAIGN_TICK_MS: '0' });
  const deadline = Date.now() + 240_000;
  const listening = () => output().split('\n').filter((l) => l.includes('voicecall listening')).map((l) => JSON.parse(l) as { baseUrl: string; pid?: number });
  while (listening().length < 2 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  const lines = listening();
  t.equal(lines.length, 2, 'two service processes started');
  while (!/share port/.test(output()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  t.equal(output().split('\n').filter((l) => l.startsWith('voicecall: ready in')).length, 1, 'one banner for a person, not one per process');
  t.match(output(), /processes 2 service processes share port \d+ \(INSTANCES\)/);
  t.equal(new URL(lines[0].baseUrl).port, new URL(lines[1].baseUrl).port, 'on one port');
  t.equal((await fetch(`${lines[0].baseUrl}/health`)).status, 200);
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  let rows: Array<{ id: string }> = [];
  while (rows.length < 2 && Date.now() < deadline) { // registration runs in the background of start-up
    rows = (await client.query<{ id: string }>('SELECT id FROM engine_instances')).rows;
    if (rows.length < 2) await new Promise((r) => setTimeout(r, 100));
  }
  await client.end();
  t.equal(new Set(rows.map((r) => r.id.split(':')[1])).size, 2, 'two engine instances, one per process');
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'the supervisor stops its processes and exits 0');
});

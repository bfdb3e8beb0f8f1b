/**
 * Two instances on one PostgreSQL and one Redis behind a round-robin balancer (test/helpers/balancer.ts): a
 * command about a live call reaches the instance that runs it whichever instance receives it; an owner stalled
 * past its lease has its call ended in storage and accepts that end when it comes back (fencing); an owner killed
 * with -9 mid-command has its call ended in storage. Exactly one call.completed per call in every case.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, DEV_EMAIL, DEV_PASSWORD, startTestServer } from '../helpers/server.js';
import { startBalancer } from '../helpers/balancer.js';
import { commandFlows, completedHooks, HOOK, key, until } from './call_commands_flows.js';

const skip = !process.env.DATABASE_URL || !process.env.REDIS_URL ? 'needs DATABASE_URL and REDIS_URL (instances share storage and the bus)' : '';
if (skip) t.plan(0, skip);
else await main();

async function main() {
  // three instances start (one a cold process of its own) and two owners wait out a lease
  t.setTimeout(600_000);
  // a short lease so an owner that stops answering is given up on within seconds; calls talk ten times slower
  const env = { SIM_TIME_SCALE: '0.1', CALL_INSTANCE_LEASE_SECONDS: '5', CAMPAIGN_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' };
  const a = await startTestServer({ env });
  t.teardown(() => a.close());
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  const origin = (s: typeof a) => new URL(s.baseUrl).origin;
  const lb = await startBalancer([origin(a), origin(b)]);
  t.teardown(() => lb.close());

  t.test('A runs the calls, commands go to B', async (t) => commandFlows(t, a, b));

  t.test('behind the balancer: calls dispatched and hung up through it, every one stopped on its owner', async (t) => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await api(`${lb.url}/v1`, 'POST', '/calls/dispatch', { ...key, body: { to: '+15005550009', agent_id: 'default', webhook_url: HOOK } });
      t.equal(r.status, 201, JSON.stringify(r.body));
      ids.push(r.body.id);
    }
    const ownerOf = (id: string) => (a.services.callEngine.runner.live.has(id) ? a : b.services.callEngine.runner.live.has(id) ? b : undefined);
    const owners = await Promise.all(ids.map((id) => until(`call ${id} on an instance`, () => ownerOf(id))));
    t.ok(owners.includes(a) && owners.includes(b), 'both instances run calls');
    for (const [i, id] of ids.entries()) await until(`call ${id} in session`, () => owners[i].services.callEngine.runner.live.get(id)?.session);
    const before = [...lb.hits];
    for (const id of ids) {
      const r = await api(`${lb.url}/v1`, 'POST', `/calls/${id}/hangup`, key);
      t.match(r.body, { status: 'completed', ended_reason: 'hangup_api' });
    }
    t.same(lb.hits.map((h, i) => h - before[i]), [2, 2], 'the hang-ups were spread over both instances');
    for (const [i, id] of ids.entries()) {
      await until('the owner lets the call go', () => !owners[i].services.callEngine.runner.live.has(id));
      t.equal(await completedHooks(a, id), 1, `${id}: one call.completed`);
    }
  });

  // A third instance in a process of its own, so it can be stopped (SIGSTOP: stalled past its lease) and killed.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  let child: ChildProcess | undefined;
  let out = '';
  t.teardown(() => { if (child && child.exitCode === null) { child.kill('SIGCONT'); child.kill('SIGKILL'); } });
  if (process.env.TEST_CHILD_LOG) t.teardown(() => writeFileSync(process.env.TEST_CHILD_LOG!, out));
  const startChild = async () => {
    out = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: 'memory', LOG_LEVEL: 'info', DATABASE_URL: a.databaseUrl,
        REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: a.config.REDIS_KEY_PREFIX, SERVICE_JWT_SECRET: a.config.SERVICE_JWT_SECRET,
        SERVICE_API_KEY: a.config.SERVICE_API_KEY, SERVICE_DEV_EMAIL: DEV_EMAIL, SERVICE_DEV_PASSWORD: DEV_PASSWORD, WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32' },
    });
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const line = await until('the child instance listening', () => out.split('\n').find((l) => l.includes('voicecall listening')), 180_000);
    return `${JSON.parse(line).baseUrl}`;
  };
  const callOnChild = async (base: string) => {
    const r = await api(base, 'POST', '/calls/dispatch', { ...key, body: { to: '+15005550009', agent_id: 'default', webhook_url: HOOK } });
    if (r.status !== 201) throw new Error(`dispatch on the child: ${r.status} ${JSON.stringify(r.body)}`);
    // in session: its recording is being written (DATA_DIR=memory: a temp folder of the child's pid)
    await until('the child call in session', () => existsSync(join(tmpdir(), `vcs-recordings-${child!.pid}`, `${r.body.id}.wav`)));
    return r.body.id as string;
  };
  // A call whose owner stopped answering ends either way (src/calls/commands.ts): as the hang-up asked, by the instance
  // that got it, at a fifth of the lease before the lease runs out; or, when that instance is slowed past that margin
  // (a loaded machine), as instance_lost by the liveness sweep. One wins; the reply, storage and the one transition agree.
  const END_OF_LOST_OWNER = ['completed/hangup_api', 'failed/instance_lost'];
  const endOf = (c: { status?: string; to_status?: string; ended_reason?: string; reason?: string }) => `${c.status ?? c.to_status}/${c.ended_reason ?? c.reason}`;
  const transitionsTo = async (id: string) => (await a.services.db.query<{ to_status: string; reason: string }>(
    `SELECT to_status, reason FROM call_lifecycle WHERE call_id = $1 AND to_status IN ('completed', 'failed', 'canceled')`, [id])).rows;

  t.test('an owner stalled past its lease: its call is ended in storage, and it accepts that end when it resumes', async (t) => {
    const base = await startChild();
    const id = await callOnChild(base);
    child!.kill('SIGSTOP');
    const r = await api(b.baseUrl, 'POST', `/calls/${id}/hangup`, key);
    t.equal(r.status, 200, JSON.stringify(r.body));
    const end = endOf(r.body);
    t.ok(END_OF_LOST_OWNER.includes(end), `ended in storage once the owner did not answer within its lease: ${end}`);
    child!.kill('SIGCONT');
    // the owner's own end is refused by the conditional move; what it stores of the call (its recording) follows
    await until('the owner stored its recording', async () => (await a.services.db.query(`SELECT 1 FROM calls WHERE id = $1 AND recording_path IS NOT NULL`, [id])).rows.length);
    t.equal(endOf((await api(b.baseUrl, 'GET', `/calls/${id}`, key)).body), end, 'the stored end stands');
    t.same((await transitionsTo(id)).map(endOf), [end], 'one final transition');
    t.equal(await completedHooks(a, id), 1, 'exactly one call.completed');
  });

  t.test('an owner killed with -9 mid-command: its call is ended in storage, once', async (t) => {
    const base = child && child.exitCode === null ? out.split('\n').filter((l) => l.includes('voicecall listening')).map((l) => JSON.parse(l).baseUrl)[0] : await startChild();
    const id = await callOnChild(base);
    child!.kill('SIGSTOP'); // the command below reaches its socket, never its code
    const pending = api(`${lb.url}/v1`, 'POST', `/calls/${id}/hangup`, key);
    await new Promise((r) => setImmediate(r));
    child!.kill('SIGKILL');
    const r = await pending;
    t.equal(r.status, 200, JSON.stringify(r.body));
    const end = endOf(r.body);
    t.ok(END_OF_LOST_OWNER.includes(end), `ended in storage: ${end}`);
    t.same((await transitionsTo(id)).map(endOf), [end], 'one final transition, the one the hang-up answered with');
    t.equal(await completedHooks(a, id), 1, 'exactly one call.completed');
  });
}

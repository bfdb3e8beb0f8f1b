/**
 * What broke: `npm run create-tenant` while the embedded service ran printed a tenant id the running service never
 * saw, and the tenant was gone after a restart (PGlite opened twice, no lock). Now the service holds DATA_DIR: a
 * second service exits 2 and the CLI says to stop the service or use the API, which creates tenants for the
 * platform tenant's admins; once the service stops, the CLI works, and both tenants survive a restart.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOCK_FILE } from '../../src/db/data_dir_lock.js';

// three cold starts of the embedded service (PGlite, audio pool): on a loaded machine each can take half a minute
t.setTimeout(360_000);
const root = fileURLToPath(new URL('../../', import.meta.url));
const dataDir = await mkdtemp(join(tmpdir(), 'vc-datadir-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
const PASSWORD = 'dev-password-for-lock-test';
const ENV = { DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', SERVICE_DEV_PASSWORD: PASSWORD,
  CAMPAIGN_TICK_MS: '0', LEAD_SCHEDULER_TICK_MS: '0', PRIVACY_EXPIRE_INTERVAL_MS: '0' };

function run(args: string[], env: Record<string, string> = {}) {
  // node with tsx's loader, as `npm start` runs it: the tsx CLI would relay SIGTERM and SIGKILL a service slow to confirm it
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env: { ...process.env, ...ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = once(child, 'exit').then(([code]) => code as number);
  return { child, exited, out: () => out, err: () => err };
}

async function startService() {
  const svc = run(['src/main.ts']);
  const deadline = Date.now() + 120_000;
  while (!/voicecall listening/.test(svc.out()) && Date.now() < deadline && svc.child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  const line = svc.out().split('\n').find((l) => l.includes('voicecall listening'));
  if (!line) throw new Error(`service did not start: ${svc.err()}${svc.out()}`);
  return { ...svc, base: JSON.parse(line).baseUrl as string };
}

const createTenantCli = (name: string, email: string) => run(['src/cli/create_tenant.ts', '--name', name, '--email', email, '--password', 'tenant-admin-password']);
const post = (url: string, body: unknown, token?: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
const loginStatus = async (base: string, email: string, password: string) => (await post(`${base}/auth/login`, { email, password })).status;

t.test('one process at a time on an embedded DATA_DIR', async (t) => {
  const first = await startService();
  t.teardown(() => { first.child.kill('SIGKILL'); });

  const second = run(['src/main.ts']);
  t.equal(await second.exited, 2, 'a second service exits 2');
  t.match(second.err(), /DATA_DIR .* is in use by another process \(pid \d+/);
  t.match(second.err(), /Stop that process first/);
  t.notMatch(second.err(), /    at /, 'no stack trace');

  const cli = createTenantCli('Blocked', 'blocked@tenant.test');
  t.equal(await cli.exited, 2, 'the CLI exits 2');
  t.match(cli.err(), /stop it first, or create the tenant through its API/);
  t.match(cli.err(), /POST <PUBLIC_BASE_URL>\/tenants/);
  t.equal(cli.out(), '', 'and prints no tenant id');

  const token = (await (await post(`${first.base}/auth/login`, { email: 'dev@example.com', password: PASSWORD })).json()).access_token;
  const created = await post(`${first.base}/tenants`, { name: 'Via API', admin_email: 'api@tenant.test', admin_password: 'tenant-admin-password' }, token);
  t.equal(created.status, 201, 'the platform admin creates a tenant through the API');
  t.equal(await loginStatus(first.base, 'api@tenant.test', 'tenant-admin-password'), 200, 'the running service sees it');

  first.child.kill('SIGTERM');
  t.equal(await first.exited, 0, 'the service stops');
  t.notOk(await access(join(dataDir, LOCK_FILE)).then(() => true, () => false), 'and releases the folder');

  const cliNow = createTenantCli('Via CLI', 'cli@tenant.test');
  t.equal(await cliNow.exited, 0, `the CLI works with the service stopped ${cliNow.err()}`);
  t.match(JSON.parse(cliNow.out()), { tenant_id: /^ten_/ });

  const again = await startService();
  t.teardown(() => { again.child.kill('SIGKILL'); });
  t.equal(await loginStatus(again.base, 'api@tenant.test', 'tenant-admin-password'), 200, 'the API tenant survived the restart');
  t.equal(await loginStatus(again.base, 'cli@tenant.test', 'tenant-admin-password'), 200, 'the CLI tenant is seen by the service');
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0);
});

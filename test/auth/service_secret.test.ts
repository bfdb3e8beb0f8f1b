/**
 * With SERVICE_JWT_SECRET unset every restart made every token and every 7-day recording link invalid. The
 * secret is now generated once and kept in DATA_DIR/service_secret (mode 0600); DATA_DIR=memory keeps a
 * per-process secret.
 */
import t from 'tap';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { persistentSecret, SECRET_FILE } from '../../src/auth/service_secret.js';
import { api, login, startTestServer } from '../helpers/server.js';

const dir = await mkdtemp(join(tmpdir(), 'vc-secret-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));

t.test('generated once, mode 0600, the same on every start', async (t) => {
  const d = join(dir, 'unit');
  const a = await persistentSecret(d);
  t.ok(a.length >= 32);
  t.equal((await stat(join(d, SECRET_FILE))).mode & 0o777, 0o600);
  t.equal(await persistentSecret(d), a);
  const [x, y] = await Promise.all([persistentSecret(join(dir, 'race')), persistentSecret(join(dir, 'race'))]);
  t.equal(x, y, 'two processes starting together agree');
});

t.test('a file others can read is narrowed to 0600; an unusable one is an error naming it', async (t) => {
  const d = join(dir, 'loose');
  const s = await persistentSecret(d);
  await chmod(join(d, SECRET_FILE), 0o644);
  t.equal(await persistentSecret(d), s);
  t.equal((await stat(join(d, SECRET_FILE))).mode & 0o777, 0o600);
  const bad = join(dir, 'bad');
  await persistentSecret(bad);
  await writeFile(join(bad, SECRET_FILE), 'short\n');
  await t.rejects(persistentSecret(bad), /service_secret holds no usable secret/);
});

t.test('tokens and recording links survive a restart of a server without SERVICE_JWT_SECRET', async (t) => {
  const dataDir = join(dir, 'server');
  const env = { SERVICE_JWT_SECRET: undefined, DATA_DIR: dataDir };
  const a = await startTestServer({ env });
  const token = await login(a.baseUrl);
  const link = a.services.callEngine.signer.url(a.baseUrl, `call_${'f'.repeat(24)}`);
  const secret = a.config.jwtSecret;
  await a.close();
  t.equal((await readFile(join(dataDir, SECRET_FILE), 'utf8')).trim(), secret, 'the secret in use is the kept one');
  const b = await startTestServer({ env, databaseUrl: a.databaseUrl });
  t.teardown(() => b.close());
  t.equal(b.config.jwtSecret, secret);
  t.equal((await api(b.baseUrl, 'GET', '/agents', { token })).status, 200, 'the token from before the restart works');
  const u = new URL(link);
  t.ok(b.services.callEngine.signer.verify(`call_${'f'.repeat(24)}`, Number(u.searchParams.get('expires')), u.searchParams.get('sig')!),
    'so does the recording link');
});

t.test('DATA_DIR=memory keeps a per-process secret', async (t) => {
  const a = await startTestServer({ env: { SERVICE_JWT_SECRET: undefined } });
  const b = await startTestServer({ env: { SERVICE_JWT_SECRET: undefined } });
  t.teardown(async () => { await a.close(); await b.close(); });
  t.not(a.config.jwtSecret, b.config.jwtSecret);
});

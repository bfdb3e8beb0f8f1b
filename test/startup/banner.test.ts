/**
 * `npm start` (scripts/start.mjs: the compiled service) prints progress while the embedded database starts, then a
 * banner naming the site, the app, the API, the development sign-in, the mode and where data lives; secrets never.
 */
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { bannerLines } from '../../src/startup/banner.js';
import { loadConfig } from '../../src/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

t.test('npm start prints progress, then where to go; the addresses answer', async (t) => {
  // the embedded default, as a newcomer runs it (DATA_DIR=memory: nothing left behind)
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root, env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory', PORT: '0', LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c) => { out += c; if (out.includes('  stop ') && out.includes('"voicecall listening"')) resolve(); });
    child.once('exit', (code) => reject(new Error(`exited ${code} before the banner:\n${out}\n${err}`)));
  });
  const lines = out.split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  t.ok(at(/^voicecall: starting the embedded database \(PGlite\) in memory … \(\d+\.\d s\)$/) >= 0, 'progress: the embedded database');
  t.ok(at(/^voicecall: applying database migrations … /) > at(/embedded database/), 'progress in order');
  t.ok(at(/^voicecall: ready in \d+\.\d s$/) > at(/migrations/), 'ready after the progress');
  const field = (name: string) => lines.find((l) => l.startsWith(`  ${name} `))?.slice(name.length + 2).trim();
  const site = field('site')!;
  t.match(site, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  t.equal(field('app'), `${site}app`);
  const api = field('API')!.split(' ')[0];
  t.equal(api, `${site}v1`);
  t.equal(field('sign in')?.split('   ')[0], 'dev@example.com / dev-password');
  t.match(field('mode'), /^simulator: /);
  t.match(field('data'), /^in memory .*bus in-process$/);
  // pino writes asynchronously: its line may come before or after the banner
  const logged = lines.some((l) => l.startsWith('{') && l.includes('"msg":"voicecall listening"'));
  t.ok(logged, logged ? 'the JSON log line is still there' : `no JSON listening line in:\n${out}`);
  t.equal((await fetch(`${api}/health`)).status, 200, 'the API line answers');
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  t.equal(code, 0, 'clean exit');
});

t.test('the banner names secrets by their setting, never their value', async (t) => {
  const config = loadConfig({
    DATABASE_URL: 'postgres://voice:hunter2-db@db.internal:5432/voicecall', SERVICE_DEV_PASSWORD: 'correct-horse-battery', SERVICE_DEV_EMAIL: 'ops@acme.test',
  });
  const text = bannerLines(config, { port: 8787, storage: 'pg', bus: 'redis' }, 1234).join('\n');
  t.notMatch(text, /hunter2|correct-horse|voice:/);
  t.match(text, /data +PostgreSQL at db\.internal:5432\/voicecall; bus Redis/);
  t.match(text, /sign in +ops@acme\.test with the password in SERVICE_DEV_PASSWORD/);
  t.match(text, /ready in 1\.2 s/);
});

t.test('a listener on every address is shown as 127.0.0.1', async (t) => {
  const config = loadConfig({ HOST: '0.0.0.0' });
  const text = bannerLines(config, { port: 9000, storage: 'pglite', bus: 'memory' }, 10).join('\n');
  t.match(text, /site +http:\/\/127\.0\.0\.1:9000\//);
  t.match(text, /data +\/.*data +\(embedded PGlite\)/);
});

t.test('several processes (INSTANCES): the banner says how many share the port; one process says nothing of it', async (t) => {
  const config = loadConfig({});
  t.match(bannerLines(config, { port: 8787, storage: 'pg', bus: 'redis', processes: 4 }, 10).join('\n'), /processes 4 service processes share port 8787 \(INSTANCES\)/);
  t.notMatch(bannerLines(config, { port: 8787, storage: 'pg', bus: 'redis' }, 10).join('\n'), /processes/);
});

t.test('a provider chosen from the keys is said at start-up', async (t) => {
  const { derivedProviders } = await import('../../src/integrations.js');
  const config = loadConfig({ SERVICE_MODE: 'live', SERVICE_JWT_SECRET: 'x'.repeat(32), SERVICE_DEV_PASSWORD: 'a-real-password', SERVICE_API_KEY: 'k'.repeat(20),
    PUBLIC_BASE_URL: 'https://voice.example.com/v1', SERVICE_WEBHOOK_SECRET: 'inbound-secret-0123456789', ADAPTER_CARRIER_URL: '127.0.0.1:1',
    STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'dg', OPENAI_API_KEY: 'sk-x', ELEVENLABS_API_KEY: 'el', ELEVENLABS_VOICE_ID: 'v' });
  const derived = derivedProviders(config);
  t.same(derived, [
    "dialog_model: openai (chosen from the keys: DIALOG_PROVIDER is not set and only openai's keys are)",
    "text_to_speech: elevenlabs (chosen from the keys: TTS_PROVIDER is not set and only elevenlabs's keys are)",
  ]);
  const text = bannerLines(config, { port: 8787, storage: 'pglite', bus: 'memory', derived }, 10).join('\n');
  t.match(text, /provider  dialog_model: openai \(chosen from the keys/);
  t.notMatch(text, /sk-x|a-real-password/);
});

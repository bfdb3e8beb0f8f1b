/**
 * What broke: the client library could not run on plain Node: its entry point was a .ts file
 * (ERR_UNKNOWN_FILE_EXTENSION) and the package was private. It is built (npm run build:client, run by `prepare` on
 * npm install) into packages/client as JavaScript with type declarations, a package of its own (@voicecall/client,
 * depending on ws only). Here plain `node`, in a child process with no loader, installs it by name and drives a
 * running test service with it.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { API_KEY, startTestServer } from '../helpers/server.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const pkgDir = join(root, 'packages/client');
/** the environment of a plain node: no loader or option inherited from the test runner */
const plainEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_OPTIONS' && !k.startsWith('TAP') && !k.startsWith('_TAPJS')));

await run(process.execPath, [join(pkgDir, 'build.mjs')], { cwd: root, env: plainEnv });
const srv = await startTestServer();
t.teardown(() => srv.close());

t.test('the package: JavaScript with declarations, its own name, exports and files', async (t) => {
  const pkg = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8'));
  t.equal(pkg.name, '@voicecall/client');
  t.notOk(pkg.private, 'publishable');
  t.same(pkg.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
  t.same(Object.keys(pkg.dependencies), ['ws'], 'none of the service\'s dependencies');
  for (const f of ['index.js', 'index.d.ts', 'listener.js', 'http.js', 'types.js']) t.ok(existsSync(join(pkgDir, 'dist', f)), f);
  const packed = JSON.parse((await run('npm', ['pack', '--dry-run', '--json'], { cwd: pkgDir, env: plainEnv })).stdout)[0];
  const files = packed.files.map((f: { path: string }) => f.path).sort();
  t.ok(files.includes('dist/index.js') && files.includes('dist/index.d.ts') && files.includes('README.md'), files.join(' '));
  t.notOk(files.some((f: string) => f.endsWith('.ts') && !f.endsWith('.d.ts')), 'no TypeScript source');
  const rootPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  t.match(rootPkg.scripts.prepare, /^npm run build:client( &&|$)/, 'npm install builds it');
});

t.test('plain node imports it by its package name and drives the service', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'voicecall-client-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // what `npm install <path>` of a folder does: a link under node_modules (its ws resolves from the package's place)
  await mkdir(join(dir, 'node_modules/@voicecall'), { recursive: true });
  await symlink(pkgDir, join(dir, 'node_modules/@voicecall/client'), 'dir');
  await writeFile(join(dir, 'app.mjs'), `
    import { VoiceClient, VoiceApiError } from '@voicecall/client';
    const client = new VoiceClient({ baseUrl: process.argv[2], apiKey: process.argv[3] });
    const call = await client.createCall({ to: '+15005550002', agent_id: 'default' });
    const statuses = [];
    const end = await new Promise((resolve) => {
      const live = client.listen(call.id);
      live.on('status', (s) => statuses.push(s.status));
      live.on('end', resolve);
    });
    const read = await client.getCall(call.id);
    let refused;
    try { await client.createCall({ to: 'not a number' }); } catch (err) { refused = { isApiError: err instanceof VoiceApiError, status: err.status, code: err.code }; }
    console.log(JSON.stringify({ id: call.id, statuses, end: end.reason, final: read.status, refused }));
  `);
  const out = await run(process.execPath, ['app.mjs', srv.baseUrl, API_KEY], { cwd: dir, env: plainEnv, timeout: 60_000 });
  const r = JSON.parse(out.stdout.trim().split('\n').at(-1)!);
  t.match(r, { id: /^call_[0-9a-f]{24}$/, end: 'call_ended', final: 'busy', refused: { isApiError: true, status: 400, code: 'validation_failed' } });
  t.same(r.statuses.slice(-1), ['busy']);
});

t.test('the repository itself imports it by the root package name too (plain node)', async (t) => {
  const out = await run(process.execPath, ['--input-type=module', '-e', "import { VoiceClient } from 'voicecall'; console.log(typeof VoiceClient)"], { cwd: root, env: plainEnv });
  t.equal(out.stdout.trim(), 'function');
});

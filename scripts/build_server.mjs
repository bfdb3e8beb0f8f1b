// Compiles the service's TypeScript (src/, workers/) into JavaScript under dist/server, file by file with esbuild:
// under a second, and esbuild is a runtime dependency (tsx's), so an install without dev dependencies compiles too.
// Types are checked by `npm run typecheck` (tsc), not here. `npm install` runs this (prepare); `npm start` runs it
// again when a source file is newer than the last build (scripts/start.mjs).
//   node scripts/build_server.mjs          build
//   node scripts/build_server.mjs --check  exit 1 and say why when the build is stale
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const OUT = join(ROOT, 'dist', 'server');
const STAMP = join(OUT, '.built');
const SOURCES = ['src', 'workers'];
// the client library has its own build (packages/client); the service never imports it
const SKIP = new Set([join(ROOT, 'src', 'client')]);

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (SKIP.has(p)) continue;
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}

const sources = () => SOURCES.flatMap((d) => [...files(join(ROOT, d))]);

/** Why dist/server must be rebuilt (a sentence), or undefined when it is current. */
export function staleReason() {
  if (!existsSync(STAMP) || !existsSync(join(OUT, 'src', 'main.js'))) return 'no build yet';
  const built = statSync(STAMP).mtimeMs;
  for (const f of [...sources(), join(ROOT, 'package.json'), fileURLToPath(import.meta.url)]) {
    if (statSync(f).mtimeMs > built) return `${relative(ROOT, f)} changed since the last build`;
  }
  return undefined;
}

export async function buildServer() {
  const all = sources();
  // Built whole into a folder of its own, then swapped in: a deleted source leaves no module behind, and a process
  // starting meanwhile (two test files at once) never imports a half-written tree.
  const tmp = `${OUT}.${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await build({
    entryPoints: all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    outdir: tmp, outbase: ROOT, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'warning',
  });
  // CommonJS worker entries are shipped as they are (src/adapters/sim/callees.ts starts one)
  for (const f of all.filter((f) => f.endsWith('.cjs'))) {
    const to = join(tmp, relative(ROOT, f));
    mkdirSync(join(to, '..'), { recursive: true });
    copyFileSync(f, to);
  }
  writeFileSync(join(tmp, '.built'), `${new Date().toISOString()}\n`);
  const old = `${OUT}.old.${process.pid}`;
  try { renameSync(OUT, old); } catch (err) { if (err.code !== 'ENOENT') throw err; }
  try { renameSync(tmp, OUT); } catch (err) {
    // another process put its build in place between the two renames: that one is as current as this one
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const why = staleReason();
    if (why) { console.log(`dist/server is stale: ${why}`); process.exit(1); }
  } else {
    const t0 = Date.now();
    await buildServer();
    console.log(`voicecall: compiled src/ and workers/ into dist/server in ${Date.now() - t0} ms`);
  }
}

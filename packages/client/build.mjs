// Builds the client library (src/client, TypeScript) into this package as JavaScript with type declarations, and
// copies its README. Run by `npm run build:client`, which the root package's `prepare` runs on `npm install`.
// A production install without dev dependencies has no TypeScript: it says so and leaves the client unbuilt (the
// service itself does not need it).
import { execFileSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
let tsc;
try { tsc = createRequire(`${root}package.json`).resolve('typescript/bin/tsc'); } catch {
  console.warn('build:client: typescript is not installed (an install without dev dependencies): the client library was not built');
  process.exit(0);
}
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', `${root}tsconfig.client.json`], { stdio: 'inherit' });
copyFileSync(`${root}src/client/README.md`, new URL('./README.md', import.meta.url));

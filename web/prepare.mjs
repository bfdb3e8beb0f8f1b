// `npm install` runs this (the prepare script) to build the pages. A production install without the dev
// dependencies (--omit=dev) has no build tools: it skips the build and must be given a dist/web built
// beforehand; until then the service answers 503 on / and /app saying so.
import { spawnSync } from 'node:child_process';

try {
  import.meta.resolve('vite');
} catch {
  console.warn('voicecall: dev dependencies are not installed, so the web pages are not built (run npm run build:web where they are).');
  process.exit(0);
}
const run = spawnSync('npm', ['run', 'build:web'], { stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(run.status ?? 1);

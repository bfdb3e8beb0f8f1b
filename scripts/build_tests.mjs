// Builds tap with the plugins package.json's "tap" section names (tsx instead of tap's ts-node plugin). tap does this
// by itself when it sees the set changed, but only after the run that saw it: a fresh install's first `npm test`
// would compile every file with ts-node as well (about 6 s of CPU more per file). `npm install` runs this (prepare);
// an install without dev dependencies has no tap, and skips it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const tap = `${root}node_modules/.bin/tap`;
if (existsSync(tap)) execFileSync(tap, ['build'], { cwd: root, stdio: 'inherit' });

/**
 * npm run bench [-- <name filter>...]
 * Runs every bench/*.bench.ts in name order, each in its own Node process (so one bench's JIT state, heap and
 * worker threads cannot skew the next), with the same TypeScript loader. Filters keep files whose name
 * contains any of the given strings, e.g. `npm run bench -- audio_corpus`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
/**
 * The service's runtime flags (as `npm start` sets them), for benches that host the service in-process: a 32 MB
 * young generation lets a call's short-lived media objects die young instead of being promoted and collected by
 * full mark-compacts, whose pauses landed in turn latency (calls_pipeline, 200 calls: 102 GC pauses instead of
 * 187, pipeline-added p99 ~5 ms instead of ~7 ms on PostgreSQL + Redis).
 */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=32'];
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error(`no bench/*.bench.ts matches ${filters.join(', ') || '(none present)'}`);
  process.exit(1);
}

const failed: string[] = [];
for (const f of files) {
  console.log(`\n===== ${f} =====`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [...SERVICE_NODE_FLAGS, '--import', 'tsx', path.join(dir, f)], { stdio: 'inherit', cwd: path.resolve(dir, '..') });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) failed.push(`${f} (exit ${r.status ?? r.signal})`);
  console.log(`----- ${f}: ${r.status === 0 ? 'ok' : 'FAILED'} in ${secs} s`);
}
if (failed.length) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}

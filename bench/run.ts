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
 * The service's runtime flags (as `npm start` sets them), for benches that host the service in-process. The young
 * generation is capped at 8 MB because a scavenge's pause grows with what survives it, and at a few thousand
 * requests or audio frames a second that is every request and call in flight: with 32 MB (the earlier setting,
 * chosen to promote fewer media objects) the scavenges ran 7-16 ms and, at 1,500 dispatches/s, 20-32 pauses per
 * 10 s exceeded 10 ms, each holding back ~15 requests; with 8 MB they run 3-6 ms, 0-2 exceed 10 ms, and the
 * open-loop p99 fell from 66-68 to 31-52 ms (leads_http, BENCH_NODE_FLAGS A/B, gc_* columns). calls_pipeline
 * at 200 calls measured 4.45 ms p99 with 8 MB against 5.08-5.78 ms with 32 MB in the same hour.
 */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=8'];
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

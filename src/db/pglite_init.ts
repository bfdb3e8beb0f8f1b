/**
 * Creates a new embedded database folder on a thread of its own. PGlite creates a cluster by running initdb in a
 * WebAssembly instance of its own; the memory that instance grew (several hundred MB) stayed resident in the
 * process long after (810 MB idle after a first start against 310 MB after later ones, bench/README.md, startup).
 * On a worker thread it goes away with the thread; the service then opens the finished folder as on any later start.
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// CommonJS evaluated on the thread: it imports PGlite from the URL the service resolved, creates, and closes.
const CREATE = `
const { workerData, parentPort } = require('node:worker_threads');
import(workerData.pglite).then(async ({ PGlite }) => {
  const db = new PGlite(workerData.dir, workerData.options);
  await db.waitReady;
  await db.close();
  parentPort.postMessage('created');
});
`;

/** Whether `dir` holds no cluster yet (PostgreSQL writes PG_VERSION first thing). */
export const isNewCluster = (dir: string) => !existsSync(join(dir, 'PG_VERSION'));

export async function createClusterOffThread(dir: string, options: object): Promise<void> {
  const worker = new Worker(CREATE, { eval: true, workerData: { dir, options, pglite: import.meta.resolve('@electric-sql/pglite') } });
  await new Promise<void>((resolve, reject) => {
    let created = false;
    worker.once('message', () => { created = true; });
    worker.once('error', reject);
    worker.once('exit', (code) => (created ? resolve() : reject(new Error(`creating the embedded database in ${dir} failed (thread exit ${code})`))));
  });
}

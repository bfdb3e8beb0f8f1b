/**
 * Memory per idle listener on the edge: JS heap + external (Buffers) of the service's isolate after GC, before
 * and after opening N idle listeners (the clients live in a worker thread, a separate isolate, so they are not
 * counted; kernel socket buffers are not counted either). Two shapes: N listeners on one call, and N calls with
 * one listener each (each call then has its own feed and bus subscription).
 *   npx tsx bench/stream_memory.bench.ts   (LISTENERS=1000)
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { API_KEY, insertCall, listenerWorker, sleep, startBenchServer, streamUrl } from './stream_setup.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const N = Number(process.env.LISTENERS ?? 1000);

async function settledMemory() {
  for (let i = 0; i < 4; i++) { gc(); await sleep(50); }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external, rss: m.rss };
}

const env = await startBenchServer();
const { srv } = env;
const rows: Array<Record<string, string | number>> = [];
try {
  for (const [shape, calls] of [['one call', 1], ['one call each', N]] as const) {
    const callIds: string[] = [];
    for (let i = 0; i < calls; i++) callIds.push(await insertCall(srv));
    const urls = Array.from({ length: N }, (_, i) => streamUrl(srv, callIds[i % calls]));
    const worker = listenerWorker();
    // Warm the paths once (first-use compilation and pools are not per-listener cost).
    await worker.request({ cmd: 'open', urls: urls.slice(0, 10), headers: { authorization: `Bearer ${API_KEY}` } });
    const before = await settledMemory();
    for (let i = 10; i < N; i += 100) await worker.request({ cmd: 'open', urls: urls.slice(i, Math.min(N, i + 100)), headers: { authorization: `Bearer ${API_KEY}` } });
    await sleep(300);
    const after = await settledMemory();
    const opened = N - 10;
    const stats = srv.services.stream.edge.stats;
    rows.push({
      shape, listeners: stats.listeners, feeds: stats.feeds,
      'heap KiB/listener': ((after.heap - before.heap) / opened / 1024).toFixed(2),
      'external KiB/listener': ((after.external - before.external) / opened / 1024).toFixed(2),
      'process RSS KiB/listener (incl. client side)': ((after.rss - before.rss) / opened / 1024).toFixed(1),
    });
    await worker.request({ cmd: 'close' });
    await worker.stop();
    await sleep(300);
  }
  console.log(`stream memory: ${N} idle listeners, bus ${env.busLabel}, storage ${srv.services.db.kind}`);
  console.table(rows);
} finally {
  await env.close();
}

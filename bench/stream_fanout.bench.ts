/**
 * 1,000 listeners on one edge receiving one call's events through the bus (Redis): publish-to-receive latency,
 * measured from the call engine's deps.callEvents.publish() (store + bus publish) to each listener's socket
 * message (listeners in a worker thread, same machine clock). Target: p99 < 20 ms.
 * Compared in the same run: our shared prebuilt frame written to each socket vs ws.send() per listener (the
 * broadcast pattern of ws's README), on the same sockets.
 *   npx tsx bench/stream_fanout.bench.ts   (LISTENERS=1000 EVENTS=150 INTERVAL_MS=20)
 */
import { DEV_TENANT_ID } from '../src/services.js';
import { API_KEY, insertCall, listenerWorker, nowMs, percentile, sleep, startBenchServer, streamUrl } from './stream_setup.js';

const LISTENERS = Number(process.env.LISTENERS ?? 1000);
const EVENTS = Number(process.env.EVENTS ?? 150);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 20);

const env = await startBenchServer();
const { srv } = env;
const edge = srv.services.stream.edge;
const worker = listenerWorker();
const rows: Array<Record<string, string | number>> = [];
try {
  const callId = await insertCall(srv);
  const url = streamUrl(srv, callId);
  // Open in batches so the accept backlog is not the thing measured.
  for (let i = 0; i < LISTENERS; i += 100) {
    await worker.request({ cmd: 'open', urls: Array(Math.min(100, LISTENERS - i)).fill(url), headers: { authorization: `Bearer ${API_KEY}` } });
  }
  const publish = (text: string) => srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'transcript', speaker: 'agent', text, latencyMs: 0, partial: false });
  for (let i = 0; i < 20; i++) await publish('warm-up');
  await sleep(300);

  const started = nowMs();
  for (const [mode, direct] of [['prebuilt frame per item', true], ['ws.send per listener', false], ['prebuilt frame per item (again)', true]] as const) {
    edge.configure({ directFrameWrites: direct });
    await worker.request({ cmd: 'reset' });
    edge.fanoutMs.splice(0);
    for (let i = 0; i < EVENTS; i++) {
      await publish(`t:${nowMs()}`);
      await sleep(INTERVAL_MS);
    }
    await sleep(500);
    const { stats, latencies } = await worker.request<{ stats: Array<{ outOfOrder: number }>; latencies: number[] }>({ cmd: 'report' });
    const sorted = latencies.sort((a, b) => a - b);
    const fan = [...edge.fanoutMs].sort((a, b) => a - b);
    rows.push({
      'edge write-out': mode,
      deliveries: `${latencies.length}/${LISTENERS * EVENTS}`,
      'out of order': stats.reduce((s, x) => s + x.outOfOrder, 0),
      'p50 ms': percentile(sorted, 50).toFixed(2),
      'p90 ms': percentile(sorted, 90).toFixed(2),
      'p99 ms': percentile(sorted, 99).toFixed(2),
      'max ms': sorted.at(-1)!.toFixed(2),
      'p99 < 20 ms': percentile(sorted, 99) < 20 ? 'yes' : 'NO',
      'write-out p50 ms': percentile(fan, 50).toFixed(2),
      'write-out p99 ms': percentile(fan, 99).toFixed(2),
    });
  }
  console.log(`stream fan-out: ${LISTENERS} listeners on one call, ${EVENTS} events every ${INTERVAL_MS} ms per row, bus ${env.busLabel}, `
    + `storage ${srv.services.db.kind}, ${((nowMs() - started) / 1000).toFixed(1)} s`);
  console.table(rows);
  console.log('latency = publish() call (store + Redis) to the listener socket; write-out = one item to all sockets of the call on this edge.');
} finally {
  edge.configure({ directFrameWrites: true });
  await worker.request({ cmd: 'close' }).catch(() => {});
  await worker.stop();
  await env.close();
}

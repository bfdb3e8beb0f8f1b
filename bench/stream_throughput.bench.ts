/**
 * 10,000 events/s through one edge without loss. Items are stored first (as the call engine's sink does),
 * then published on Redis from a separate connection at a fixed rate, as other instances running calls would;
 * listeners (worker thread) count what arrives, in order. Also: the sink's own rate (store + publish).
 *   npx tsx bench/stream_throughput.bench.ts   (RATE=10000 SECONDS=3)
 */
import { Redis } from 'ioredis';
import { DEV_TENANT_ID } from '../src/services.js';
import { callChannel } from '../src/stream/sink.js';
import { API_KEY, insertCall, listenerWorker, nowMs, sleep, startBenchServer, streamUrl } from './stream_setup.js';

const RATE = Number(process.env.RATE ?? 10_000);
const SECONDS = Number(process.env.SECONDS ?? 3);

const env = await startBenchServer();
const { srv } = env;
const redisUrl = (srv.services.config.REDIS_URL);
const publisher = redisUrl ? new Redis(redisUrl) : undefined;
const publishRaw = (channel: string, json: string) =>
  publisher ? publisher.publish(channel, json) : srv.services.bus.publish(channel, JSON.parse(json));
const rows: Array<Record<string, string | number>> = [];

async function scenario(name: string, calls: number, listenersPerCall: number) {
  const worker = listenerWorker();
  const callIds: string[] = [];
  for (let c = 0; c < calls; c++) callIds.push(await insertCall(srv));
  for (const id of callIds) await worker.request({ cmd: 'open', urls: Array(listenersPerCall).fill(streamUrl(srv, id)), headers: { authorization: `Bearer ${API_KEY}` } });
  await sleep(200);
  // Inputs built before timing: per call, stored rows and their serialised messages.
  const perCall = Math.round((RATE * SECONDS) / calls);
  const at = new Date().toISOString();
  const messages = callIds.map((id) => Array.from({ length: perCall }, (_, i) =>
    JSON.stringify({ type: 'transcript', speaker: 'agent', text: `item ${i + 1} of a steady stream`, latencyMs: 1, partial: false, call_id: id, seq: i + 1, at })));
  for (const id of callIds) {
    await srv.services.db.query(
      `INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at)
       SELECT $1, g, $2, 'transcript', jsonb_build_object('speaker', 'agent', 'text', 'item ' || g || ' of a steady stream', 'latencyMs', 1, 'partial', false), $3::timestamptz
       FROM generate_series(1, $4::int) g`, [id, DEV_TENANT_ID, at, perCall]);
    await srv.services.db.query('INSERT INTO call_event_counters (call_id, last_seq) VALUES ($1, $2)', [id, perCall]);
  }
  const total = perCall * calls;
  const tickMs = 10;
  const perTick = Math.max(1, Math.round((RATE * tickMs) / 1000));
  const started = nowMs();
  let sent = 0;
  // Round-robin over calls, paced against the wall clock so a slow tick is caught up, not dropped.
  while (sent < total) {
    const due = Math.min(total, Math.round(((nowMs() - started) / 1000) * RATE) + perTick);
    const batch: Array<Promise<unknown>> = [];
    for (; sent < due; sent++) {
      const c = sent % calls, i = Math.floor(sent / calls);
      batch.push(publishRaw(callChannel(callIds[c]), messages[c][i]));
    }
    await Promise.all(batch);
    await sleep(tickMs);
  }
  const publishSeconds = (nowMs() - started) / 1000;
  const expected = total * listenersPerCall;
  let report: { stats: Array<{ received: number; outOfOrder: number }> } = { stats: [] };
  const deadline = nowMs() + 10_000;
  for (;;) {
    report = await worker.request({ cmd: 'report' });
    if (report.stats.reduce((s, x) => s + x.received, 0) >= expected || nowMs() > deadline) break;
    await sleep(50);
  }
  const doneSeconds = (nowMs() - started) / 1000;
  const received = report.stats.reduce((s, x) => s + x.received, 0);
  rows.push({
    scenario: name, calls, listeners: calls * listenersPerCall, 'events in': total,
    'publish rate/s': Math.round(total / publishSeconds), 'delivered': `${received}/${expected}`, lost: expected - received,
    'out of order': report.stats.reduce((s, x) => s + x.outOfOrder, 0), 'all delivered after s': doneSeconds.toFixed(2),
  });
  await worker.request({ cmd: 'close' });
  await worker.stop();
}

async function sinkRate(n: number) {
  const callId = await insertCall(srv);
  const started = nowMs();
  // 8 concurrent publishers on one call: the seq counter serialises them, which is what this measures.
  await Promise.all(Array.from({ length: 8 }, async (_, w) => {
    for (let i = w; i < n; i += 8) await srv.services.callEvents.publish(DEV_TENANT_ID, callId, { type: 'entity', key: 'k', value: String(i) });
  }));
  const s = (nowMs() - started) / 1000;
  return Math.round(n / s);
}

try {
  await scenario('one call', 1, 1);
  await scenario('100 calls', 100, 1);
  await scenario('one call, 10 listeners', 1, 10);
  const sink = await sinkRate(2000);
  console.log(`stream throughput: ${RATE} events/s for ${SECONDS} s per scenario, bus ${env.busLabel}, storage ${srv.services.db.kind}`);
  console.table(rows);
  console.log(`sink (store with per-call seq + publish), one call, 8 concurrent publishers: ${sink} events/s`);
} finally {
  publisher?.disconnect();
  await env.close();
}

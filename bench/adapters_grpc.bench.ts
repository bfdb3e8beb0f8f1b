/**
 * Adapter round-trip latency per conversational turn: in-process simulators vs the same simulators behind a
 * gRPC server on loopback. A turn = STT finalize of the caller's utterance (audio already streamed and heard)
 * -> dialog turn (all events) -> TTS until the first audio chunk. Also each step alone, and 200 / 500 calls
 * whose turns all end at the same instant (the worst burst). Inputs are built before timing.
 *   npx tsx bench/adapters_grpc.bench.ts [iterations=300]
 */
import { performance } from 'node:perf_hooks';
import { createAdapters, createSimAdapters, startAdapterServer, type AdapterSet, type DialogTurnRequest } from '../src/adapters/index.js';
import { encodeSimVoice } from '../src/simvoice/index.js';
import { DEFAULT_AGENT } from '../src/repos/agents.js';

const N = Number(process.argv[2] ?? 300);
const WARMUP = 30;

const callerAudio = encodeSimVoice('My budget is around 400,000 dollars.');
const frames: Int16Array[] = [];
for (let i = 0; i < callerAudio.length; i += 160) frames.push(callerAudio.slice(i, i + 160));
const turn: DialogTurnRequest = {
  callId: 'call_bench', agent: DEFAULT_AGENT, context: {}, tools: ['calendar_booking', 'crm_sync'],
  history: [{ role: 'agent', text: 'What budget do you have in mind?' }], callerText: '',
  extracted: { customer_name: 'Anna Lee', intent: 'a villa' }, now: '2026-11-22T18:00:00Z', timeZone: 'UTC',
};
const ttsReq = { text: 'When would suit you for a site visit?', voice: 'alloy', language: 'en-US', sampleRateHz: 8000 };

type Step = (set: AdapterSet) => Promise<void>;

/** Time to the first chunk; the rest of the stream is drained untimed, as the pipeline plays it all. */
function firstChunk(set: AdapterSet): () => Promise<number> {
  return async () => {
    const t0 = performance.now();
    let ms = -1;
    for await (const chunk of set.tts.synthesize(ttsReq)) if (ms < 0 && chunk.length) ms = performance.now() - t0;
    return ms;
  };
}

const CALLER_TEXT = 'My budget is around 400,000 dollars.';

/** Opens a stream and streams the caller's utterance; resolves once the recogniser has heard all of it (its last partial). */
async function primedStream(set: AdapterSet) {
  const stream = set.stt.open({ callId: 'call_bench', language: 'en-US', sampleRateHz: 8000 });
  const heard = new Promise<void>((resolve) => stream.onResult((r) => { if (!r.final && r.text === CALLER_TEXT) resolve(); }));
  frames.forEach((f, i) => stream.write(f, i * 20));
  await heard;
  return stream;
}

/** STT finalize timed alone: the caller audio is streamed and recognised before the clock starts. */
function sttFinalize(set: AdapterSet): () => Promise<number> {
  return async () => {
    const stream = await primedStream(set);
    const t0 = performance.now();
    const r = await stream.finalize();
    const ms = performance.now() - t0;
    stream.close();
    if (r.text !== CALLER_TEXT) throw new Error('STT lost the utterance');
    return ms;
  };
}

const steps: Record<string, Step> = {
  'dialog turn (all events)': async (set) => { for await (const _ of set.dialog.turn({ ...turn, callerText: 'My budget is around 400,000 dollars.' })) void _; },
  'carrier placeCall': async (set) => { await set.carrier.placeCall({ callId: 'c', tenantId: 't', to: '+15005550002', mediaUrl: 'wss://x/m', parameters: {} }); },
};

async function time(fn: () => Promise<number>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < N; i++) xs.push(await fn());
  xs.sort((a, b) => a - b);
  return { p50: xs[Math.floor(N * 0.5)], p99: xs[Math.min(N - 1, Math.floor(N * 0.99))], mean: xs.reduce((a, b) => a + b, 0) / N };
}

const timed = (set: AdapterSet, step: Step) => async () => { const t0 = performance.now(); await step(set); return performance.now() - t0; };

/** One turn on a primed stream: finalize -> dialog -> TTS first chunk (the rest drained untimed). */
async function turnOn(set: AdapterSet, stream: Awaited<ReturnType<typeof primedStream>>): Promise<number> {
  const t0 = performance.now();
  const heard = await stream.finalize();
  let reply = '';
  for await (const e of set.dialog.turn({ ...turn, callerText: heard.text })) if (e.type === 'text') reply += `${e.text} `;
  let ms = -1;
  for await (const chunk of set.tts.synthesize({ ...ttsReq, text: reply.trim() })) if (ms < 0 && chunk.length) ms = performance.now() - t0;
  stream.close();
  return ms;
}

function fullTurn(set: AdapterSet): () => Promise<number> {
  return async () => turnOn(set, await primedStream(set));
}

const server = await startAdapterServer(createSimAdapters({ simCarrier: { ringMs: 0 } }), '127.0.0.1:0');
const sets: Record<string, AdapterSet & { close?: () => Promise<void> }> = {
  'in-process': createAdapters({ ADAPTER_TIMEOUT_MS: 10_000 }, { simCarrier: { ringMs: 0 } }),
  gRPC: createAdapters({
    ADAPTER_CARRIER_URL: server.address, ADAPTER_STT_URL: server.address, ADAPTER_DIALOG_URL: server.address,
    ADAPTER_TTS_URL: server.address, ADAPTER_TIMEOUT_MS: 10_000,
  }),
};

const rows: string[][] = [];
const fmt = (x: number) => x.toFixed(3);
for (const [name, make] of [
  ['full turn (finalize -> dialog -> first TTS chunk)', fullTurn],
  ['stt finalize', sttFinalize],
  ['tts first chunk', firstChunk],
  ...Object.entries(steps).map(([n, s]) => [n, (set: AdapterSet) => timed(set, s)] as const),
] as const) {
  for (const [label, set] of Object.entries(sets)) {
    const r = await time(make(set));
    rows.push([name, label, fmt(r.p50), fmt(r.p99), fmt(r.mean)]);
  }
}
/** C calls whose callers finish speaking at the same instant: every turn starts together; latency per turn. */
async function concurrentTurns(set: AdapterSet, calls: number): Promise<{ p50: number; p99: number; mean: number }> {
  const streams = await Promise.all(Array.from({ length: calls }, () => primedStream(set)));
  const xs = (await Promise.all(streams.map((s) => turnOn(set, s)))).sort((a, b) => a - b);
  return { p50: xs[Math.floor(calls * 0.5)], p99: xs[Math.min(calls - 1, Math.floor(calls * 0.99))], mean: xs.reduce((a, b) => a + b, 0) / calls };
}
for (const calls of [200, 500]) {
  for (const [label, set] of Object.entries(sets)) {
    await concurrentTurns(set, calls); // warm-up
    const r = await concurrentTurns(set, calls);
    rows.push([`${calls} concurrent full turns`, label, fmt(r.p50), fmt(r.p99), fmt(r.mean)]);
  }
}

const head = ['step', 'adapters', 'p50 ms', 'p99 ms', 'mean ms'];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
console.log(`adapters round trip, ${N} iterations each (after ${WARMUP} warm-up), loopback gRPC`);
console.log(line(head));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
for (const s of Object.values(sets)) await s.close?.();
await server.close();

/**
 * Timeouts, cancellation and unavailability, in-process and over gRPC, with deliberately slow implementations
 * that only finish when their signal fires (so the tests never wait on wall-clock sleeps to pass).
 */
import t, { type Test } from 'tap';
import { AdapterError, createAdapters, startAdapterServer, type AdapterSet, type SttStream } from '../../src/adapters/index.js';
import { collect, turnRequest } from './helpers/contract.js';

/** Resolves when the signal aborts; records that it did. */
interface Seen { started: number; aborted: number }
function untilAborted(signal: AbortSignal | undefined, seen: Seen): Promise<never> {
  seen.started++;
  return new Promise((_, reject) => {
    signal?.addEventListener('abort', () => { seen.aborted++; reject(new AdapterError('tool', 'canceled', 'stopped')); }, { once: true });
  });
}

function slowSet(seen: Seen): AdapterSet {
  return {
    carrier: {
      placeCall: (_req, o) => untilAborted(o?.signal, seen),
      hangup: async () => { throw new Error('database password is hunter2'); },
      transfer: async () => { throw new AdapterError('carrier', 'invalid', 'bad target'); },
    },
    stt: {
      open: (): SttStream => ({ write() {}, finalize: (o) => untilAborted(o?.signal, seen), onResult() {}, close() {} }),
      transcribe: (_pcm, o) => untilAborted(o.signal, seen),
    },
    dialog: {
      async *turn(_req, o) {
        yield { type: 'text', text: 'first sentence' };
        await untilAborted(o?.signal, seen);
      },
    },
    tts: {
      async *synthesize(_req, o) {
        yield new Int16Array(160);
        await untilAborted(o?.signal, seen);
      },
    },
  };
}

const place = { callId: 'c', tenantId: 't', to: '+14155550123', mediaUrl: 'wss://x.test/m', parameters: {} };
const tts = { text: 'hello', voice: 'v', language: 'en-US', sampleRateHz: 8000 };

async function rejectsWith(t: Test, p: Promise<unknown>, code: AdapterError['code'], name: string) {
  const err = await p.then(() => undefined, (e) => e);
  t.ok(err instanceof AdapterError, `${name}: AdapterError`);
  t.equal((err as AdapterError)?.code, code, `${name}: ${code}`);
  return err as AdapterError;
}

const seenInProcess: Seen = { started: 0, aborted: 0 };
const seenServer: Seen = { started: 0, aborted: 0 };
const server = await startAdapterServer(slowSet(seenServer), '127.0.0.1:0');
const remote = createAdapters({
  ADAPTER_CARRIER_URL: server.address, ADAPTER_STT_URL: server.address, ADAPTER_DIALOG_URL: server.address, ADAPTER_TTS_URL: server.address,
  ADAPTER_TIMEOUT_MS: 150,
}, { dialogFallback: false }); // these tests look at the raw errors; the fallback has its own tests
const local = createAdapters({ ADAPTER_TIMEOUT_MS: 150 }, { overrides: slowSet(seenInProcess) });
t.teardown(async () => { await remote.close(); await local.close(); await server.close(); });

for (const [label, set] of [['in-process', local], ['gRPC', remote]] as const) {
  t.test(`${label}: every call times out at the deadline with AdapterError('timeout')`, async (t) => {
    await rejectsWith(t, set.carrier.placeCall(place, { timeoutMs: 100 }), 'timeout', 'placeCall');
    await rejectsWith(t, set.stt.transcribe(new Int16Array(160), { language: 'en-US', sampleRateHz: 8000 }), 'timeout', 'transcribe (default deadline)');
    const stream = set.stt.open({ callId: 'c', language: 'en-US', sampleRateHz: 8000 });
    await rejectsWith(t, stream.finalize({ timeoutMs: 100 }), 'timeout', 'finalize');
    stream.close();
    const texts: string[] = [];
    const dialogErr = await rejectsWith(t, (async () => {
      for await (const e of set.dialog.turn(turnRequest())) if (e.type === 'text') texts.push(e.text);
    })(), 'timeout', 'dialog turn');
    t.ok(dialogErr.retryable, 'timeouts are retryable');
    t.same(texts, ['first sentence'], 'events before the deadline arrive');
    await rejectsWith(t, collect(set.tts.synthesize(tts, { timeoutMs: 100 })), 'timeout', 'tts');
  });

  t.test(`${label}: an abort cancels the call and nothing arrives after it`, async (t) => {
    const ctl = new AbortController();
    const p = set.carrier.placeCall(place, { signal: ctl.signal, timeoutMs: 60_000 });
    ctl.abort();
    await rejectsWith(t, p, 'canceled', 'placeCall');

    const barge = new AbortController();
    const chunks: Int16Array[] = [];
    await rejectsWith(t, (async () => {
      for await (const c of set.tts.synthesize(tts, { signal: barge.signal, timeoutMs: 60_000 })) { chunks.push(c); barge.abort(); }
    })(), 'canceled', 'tts on barge-in');
    t.equal(chunks.length, 1);

    const pre = new AbortController();
    pre.abort();
    await rejectsWith(t, collect(set.dialog.turn(turnRequest(), { signal: pre.signal })), 'canceled', 'dialog with an aborted signal');
  });

  t.test(`${label}: implementation errors keep their code, internals do not leak`, async (t) => {
    await rejectsWith(t, set.carrier.transfer('CA1', 'x'), 'invalid', 'transfer');
    const err = await rejectsWith(t, set.carrier.hangup('CA1'), 'failed', 'hangup (plain Error)');
    if (label === 'gRPC') t.notMatch(err.message, /hunter2/, 'no internals over the wire');
  });
}

t.test('the server side sees the client abort (its implementation is told to stop)', async (t) => {
  const before = { ...seenServer };
  const ctl = new AbortController();
  const p = remote.carrier.placeCall(place, { signal: ctl.signal, timeoutMs: 60_000 });
  while (seenServer.started === before.started) await new Promise((r) => setTimeout(r, 5)); // request reached the server
  ctl.abort();
  await rejectsWith(t, p, 'canceled', 'placeCall');
  while (seenServer.aborted === before.aborted) await new Promise((r) => setTimeout(r, 5));
  t.equal(seenServer.aborted, before.aborted + 1, 'implementation signal aborted');
});

t.test('an unreachable adapter server gives AdapterError(unavailable), retryable', async (t) => {
  const dead = createAdapters({
    ADAPTER_CARRIER_URL: '127.0.0.1:1', ADAPTER_STT_URL: '127.0.0.1:1', ADAPTER_DIALOG_URL: '127.0.0.1:1', ADAPTER_TTS_URL: '127.0.0.1:1',
    ADAPTER_TIMEOUT_MS: 2000,
  }, { dialogFallback: false });
  t.teardown(() => dead.close());
  const err = await rejectsWith(t, dead.carrier.placeCall(place), 'unavailable', 'placeCall');
  t.equal(err.retryable, true);
  await rejectsWith(t, collect(dead.dialog.turn(turnRequest())), 'unavailable', 'dialog');
  await rejectsWith(t, collect(dead.tts.synthesize(tts)), 'unavailable', 'tts');
  await rejectsWith(t, dead.stt.transcribe(new Int16Array(8), { language: 'en-US', sampleRateHz: 8000 }), 'unavailable', 'transcribe');
  const stream = dead.stt.open({ callId: 'c', language: 'en-US', sampleRateHz: 8000 });
  stream.write(new Int16Array(160), 0);
  await rejectsWith(t, stream.finalize(), 'unavailable', 'stream finalize');
  stream.close();
});

import t from 'tap';
import { createAdapters, createSimAdapters, startAdapterServer, type AdapterSet } from '../../src/adapters/index.js';
import { adapterContract } from './helpers/contract.js';

// The simulators behind a real gRPC server on an ephemeral port, reached through the gRPC clients.
const server = await startAdapterServer(createSimAdapters({ speech: 'tones' }), '127.0.0.1:0');
const set = createAdapters({
  ADAPTER_CARRIER_URL: server.address, ADAPTER_STT_URL: server.address, ADAPTER_DIALOG_URL: server.address,
  ADAPTER_TTS_URL: server.address, ADAPTER_TIMEOUT_MS: 5000,
});
t.teardown(async () => { await set.close(); await server.close(); });

t.same(set.modes, { carrier: 'grpc', stt: 'grpc', dialog: 'grpc', tts: 'grpc' });
t.equal(set.simCarrier, undefined, 'no in-process carrier when the carrier is remote');
adapterContract(t, 'gRPC', () => set);

t.test('gRPC: a connection survives many short speech streams (closing does not reset streams)', async (t) => {
  // Before: each close() cancelled its stream (an HTTP/2 RST_STREAM); after ~1000 of them nghttp2's
  // rapid-reset protection closed the connection and in-flight calls failed.
  let ok = 0;
  for (let i = 0; i < 1200; i++) {
    const s = set.stt.open({ callId: `call_${i}`, language: 'en-US', sampleRateHz: 8000 });
    s.write(new Int16Array(160), 0);
    const r = await s.finalize();
    if (r.final && r.text === '') ok++;
    s.close();
  }
  t.equal(ok, 1200);
});

t.test('gRPC: a transcript heard and not understood stays marked unheard', async (t) => {
  const sim = createSimAdapters({ speech: 'tones' });
  const stt: AdapterSet['stt'] = {
    open: () => ({ write: () => {}, finalize: async () => ({ text: '', final: true, startMs: 0, endMs: 900, unheard: true }), onResult: () => {}, close: () => {} }),
    transcribe: async () => ({ text: '', final: true, startMs: 0, endMs: 900, unheard: true }),
  };
  const rejecting = await startAdapterServer({ ...sim, stt }, '127.0.0.1:0');
  const remote = createAdapters({ ADAPTER_STT_URL: rejecting.address, ADAPTER_TIMEOUT_MS: 5000 });
  t.teardown(async () => { await remote.close(); await rejecting.close(); });
  const s = remote.stt.open({ callId: 'call_unheard', language: 'en-US', sampleRateHz: 8000 });
  s.write(new Int16Array(160), 0);
  t.match(await s.finalize(), { text: '', unheard: true });
  s.close();
  t.match(await remote.stt.transcribe(new Int16Array(160), { language: 'en-US', sampleRateHz: 8000 }), { text: '', unheard: true });
  const quiet = await set.stt.transcribe(new Int16Array(160), { language: 'en-US', sampleRateHz: 8000 });
  t.notOk(quiet.unheard, 'silence is not');
});

import t from 'tap';
import { createAdapters, createSimAdapters, startAdapterServer } from '../../src/adapters/index.js';
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

/**
 * A simulated call whose speech-to-text is Deepgram (STT_PROVIDER=deepgram) against the local /v1/listen fake:
 * the session streams the callee's audio over one socket, ends each turn with Finalize, answers the words the
 * fake returned, and sends CloseStream at hang-up. The demo loop's audio turn goes through the same fake.
 */
import t from 'tap';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { startFakeDeepgram } from '../fakes/deepgram.js';
import { writeWav } from '../../src/audio/index.js';

const KEY = 'dg-call-key';
const DEMO_LINE = 'I am asking from the demo page.';
const SCRIPT = ['Hi, this is Lee speaking.', 'My budget is eighty lakh.', 'Tomorrow at ten am works for me.', 'Yes, that is fine.', 'Thank you, bye.'];
const fake = await startFakeDeepgram({ apiKey: KEY, script: [DEMO_LINE, ...SCRIPT], silenceFinalMs: 1000 });
t.teardown(() => fake.close());
const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10', STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: KEY, DEEPGRAM_API_URL: fake.url } });
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };

const waitEnded = (id: string) => waitForCallEnd(srv.baseUrl, id, auth.headers, { timeoutMs: 90_000, pollMs: 200 });

t.test('a demo audio turn is transcribed over a short Deepgram socket', async (t) => {
  const c = await api(srv.baseUrl, 'POST', '/conversations', { body: {} });
  const pcm = new Int16Array(16000 * 2);
  for (let i = 8000; i < 24000; i++) pcm[i] = Math.round(4000 * Math.sin((2 * Math.PI * 220 * i) / 16000));
  const form = new FormData();
  form.append('audio', new Blob([writeWav({ sampleRateHz: 16000, channels: [pcm] }) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'turn.wav');
  const res = await fetch(`${srv.baseUrl}/conversations/${c.body.id}/audio`, { method: 'POST', body: form });
  const body = await res.json() as any;
  t.equal(res.status, 200, JSON.stringify(body));
  t.match(body.caller, { text: DEMO_LINE, transcript_source: 'stt_adapter' });
  const demo = fake.connections[0];
  t.match(demo, { query: { encoding: 'linear16', sample_rate: '16000' }, audioMs: 2000, closed: { code: 1000, by: 'server' } });
  t.same(demo.controls.map((x) => x.type), ['CloseStream']);
});

t.test('a call listens through Deepgram: one socket, Finalize per turn, CloseStream at the end', async (t) => {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'default', language: 'en-IN', context: { customer_name: 'Lee' } } });
  t.equal(d.status, 201, JSON.stringify(d.body));
  const call = await waitEnded(d.body.id);
  t.equal(call.status, 'completed');
  const conv = await api(srv.baseUrl, 'GET', `/conversations/${call.conversation_id}`, { token: await login(srv.baseUrl) });
  const heard: string[] = conv.body.messages.filter((m: { role: string }) => m.role === 'caller').map((m: { text: string }) => m.text);
  // the fake hands out one scripted line per run of loud audio; a caller turn may hold several runs
  const k = SCRIPT.findIndex((_, i) => SCRIPT.slice(0, i + 1).join(' ') === heard.join(' '));
  t.ok(k >= 2, `the caller turns are the fake's words, in order: ${JSON.stringify(heard)}`);
  t.equal(call.extracted_data.budget, '8000000 INR', 'the dialog answered what Deepgram returned');
  t.equal(fake.connections.length, 2, 'one socket for the call (after the demo turn\'s)');
  const c = fake.connections[1];
  t.match(c.query, { language: 'en-IN', encoding: 'mulaw', sample_rate: '8000', interim_results: 'true', model: 'nova-3' });
  t.equal(c.audioMs, call.metrics.frames_in * 20, 'every caller frame went to Deepgram');
  const controls = c.controls.map((x) => x.type);
  t.ok(controls.filter((x) => x === 'Finalize').length >= call.metrics.turn_count, `a Finalize per turn (${controls.join(',')})`);
  t.equal(controls.at(-1), 'CloseStream', 'CloseStream at hang-up');
  t.match(c.closed, { code: 1000, by: 'server' });
});

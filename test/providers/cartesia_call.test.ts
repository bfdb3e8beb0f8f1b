/**
 * A simulated call (the default simulator carrier over the real media socket) with TTS_PROVIDER=cartesia against
 * the local fake: every agent sentence is a context on one shared socket (the fake renders SimVoice so the
 * simulated callee understands it), and the callee's barge-in makes the service send {context_id, cancel: true}
 * for the sentence being rendered.
 */
import t from 'tap';
import { encodeSimVoice } from '../../src/simvoice/index.js';
import { API_KEY, api, login, startTestServer } from '../helpers/server.js';
import { startCartesiaFake } from '../fakes/cartesia.js';

const TIME_SCALE = 5;
const longQuestion = 'And could you tell me, in as much detail as you like, what kind of home you are looking for and which neighbourhoods you have in mind?';
const cartesia = await startCartesiaFake({
  apiKey: 'sk_car_e2e', render: (text, rateHz) => encodeSimVoice(text, { sampleRateHz: rateHz, voice: 'aria' }),
  // the long sentence renders 8 s of its 9.9 s and then waits, so it is always cut mid-stream; the callee talks over
  // it after three words, with 7 s of it still to play (1.4 s of wall time at 5x: a paced fake at 10x lost that race)
  chunkBytes: 400, stallWhen: { transcript: (text) => text === longQuestion, afterBytes: 64_000 },
});
const srv = await startTestServer({ env: {
  SIM_TIME_SCALE: String(TIME_SCALE), TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'sk_car_e2e',
  CARTESIA_VOICE_ID: 'f786b574-daa5-4673-aa0c-cbe3e8534c02', CARTESIA_API_URL: cartesia.url,
} });
t.teardown(async () => { await srv.close(); await cartesia.close(); });
const auth = { headers: { 'x-api-key': API_KEY } };

t.test('barge-in with Cartesia speaking: the context being rendered is cancelled on the shared socket', async (t) => {
  // the disclosure and the first question reach this callee as one utterance; it talks over the second one
  const put = await api(srv.baseUrl, 'PUT', '/agents/long_questions', { token: await login(srv.baseUrl), body: {
    name: 'Long questions', disclosure_script: 'Hello, this is an AI assistant from Acme, and this call may be recorded.',
    qualify_script: [{ field: 'customer_name', question: 'May I have your name?' }, { field: 'intent', question: `Thank you. ${longQuestion}` }],
    role: 'qualifier', voice: 'aria', language: 'en-US' } });
  t.equal(put.status, 201);
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+15005550006', agent_id: 'long_questions', language: 'en-US' } });
  t.equal(d.status, 201);
  let call: any;
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    call = (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, auth)).body;
    if (!['queued', 'dialing', 'ringing', 'in_progress'].includes(call.status)) break;
  }
  t.equal(call.status, 'completed');
  t.ok(call.metrics.interruptions_handled >= 1, `interruptions ${call.metrics.interruptions_handled}`);
  const contexts = [...cartesia.contexts.values()];
  t.ok(contexts.length >= 4, `every sentence was a context (${contexts.length})`);
  t.equal(cartesia.connections.accepted, 1, 'all of them on one socket');
  t.ok(contexts.every((c) => c.request.output_format.encoding === 'pcm_mulaw' && c.request.voice.id === 'f786b574-daa5-4673-aa0c-cbe3e8534c02'));
  const cut = contexts.find((c) => c.request.transcript === longQuestion);
  t.ok(cut?.canceled, 'the long question was cancelled by the barge-in');
  t.ok(cut && cut.bytesSent > 0 && !cut.done, `it had started (${cut?.bytesSent} bytes) and was never finished`);
});

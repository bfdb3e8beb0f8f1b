/**
 * The keypad on the simulator's media socket (the Twilio protocol): the caller's `dtmf` messages reach the session
 * as input (typed keys answered as a caller turn, in the live stream) or as the agent's keypad action (0: a person),
 * and the agent's tones come back as audio on the same socket.
 */
import t from 'tap';
import WebSocket from 'ws';
import { API_KEY, api, login, startTestServer, waitForCallEnd } from '../helpers/server.js';
import { mulawDecode } from '../../src/audio/index.js';
import { detectDigit } from '../../src/carriers/dtmf.js';
import { waitFor } from '../providers/live_env.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const auth = { headers: { 'x-api-key': API_KEY } };
// the simulated carrier's callee is launched by the test: the test plays the caller's phone
const carrierOpts = (srv.services.adapters.simCarrier as unknown as { opts: { callees: { launch(o: unknown): void } } }).opts;
const launched: Array<{ callId: string; carrierCallId: string; mediaUrl: string; parameters: Record<string, string> }> = [];
carrierOpts.callees = { ...carrierOpts.callees, launch: (o) => { launched.push(o as (typeof launched)[number]); } };


t.test('keys in, tones out, 0 for a person', async (t) => {
  const admin = await login(srv.baseUrl);
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/kp', { token: admin, body: {} })).status, 201);
  t.same((await api(srv.baseUrl, 'PUT', '/agents/kp/keypad', { token: admin, body: { 0: 'operator', '*': 'end_call' } })).body, { 0: 'operator', '*': 'end_call' });
  t.same((await api(srv.baseUrl, 'GET', '/agents/kp/keypad', auth)).body, { 0: 'operator', '*': 'end_call' });
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/kp/keypad', { token: admin, body: { 5: 'dance' } })).status, 400, 'an unknown action');
  t.equal((await api(srv.baseUrl, 'PUT', '/agents/none/keypad', { token: admin, body: {} })).status, 404);

  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { ...auth, body: { to: '+14155550123', agent_id: 'kp' } });
  t.equal(d.status, 201);
  const call = await waitFor('the callee launch', () => launched.find((l) => l.callId === d.body.id));
  const ws = new WebSocket(call.mediaUrl);
  ws.on('error', () => {});
  const heard: Buffer[] = [];
  ws.on('message', (m) => {
    const msg = JSON.parse(String(m)) as { event: string; media?: { payload: string } };
    if (msg.event === 'media' && msg.media) heard.push(Buffer.from(msg.media.payload, 'base64'));
  });
  await new Promise((r) => ws.once('open', r));
  const streamSid = 'MZkeypad';
  let seq = 0;
  const send = (m: object) => ws.send(JSON.stringify({ sequenceNumber: String(++seq), streamSid, ...m }));
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  send({ event: 'start', start: { accountSid: 'ACx', streamSid, callSid: call.carrierCallId, tracks: ['inbound'], customParameters: call.parameters,
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } });
  const press = (digit: string) => send({ event: 'dtmf', dtmf: { track: 'inbound_track', digit } });
  await waitFor('the agent to speak', () => heard.length > 10);
  for (const k of ['4', '2', '#']) press(k);
  const items = async () => (await api(srv.baseUrl, 'GET', `/calls/${d.body.id}/events`, auth)).body.data as Array<{ type: string; speaker?: string; text?: string; reason?: string }>;
  await waitFor('the keys in the live stream', async () => (await items()).some((i) => i.type === 'transcript' && i.speaker === 'caller' && i.text === '[keypad] 42'));
  const from = heard.length;
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/tones`, { ...auth, body: { digits: '9' } })).status, 202);
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/tones`, { ...auth, body: { digits: 'nine' } })).status, 400);
  await waitFor('the 9 key\'s tone on the socket', () => {
    const pcm = mulawDecode(Buffer.concat(heard.slice(from)));
    for (let o = 0; o + 640 <= pcm.length; o += 160) if (detectDigit(pcm.subarray(o, o + 640)) === '9') return true;
    return undefined;
  });
  press('0');
  const ended = await waitForCallEnd(srv.baseUrl, d.body.id, auth.headers);
  t.match(ended, { status: 'completed', ended_reason: 'transferred', human_escalation: true });
  t.ok((await items()).some((i) => i.type === 'escalation' && /pressed 0/.test(i.reason ?? '')), 'the escalation in the live stream');
  t.equal((await api(srv.baseUrl, 'POST', `/calls/${d.body.id}/tones`, { ...auth, body: { digits: '1' } })).status, 409, 'no tones to a call that is over');
  ws.terminate();
});

/**
 * The carrier media socket was open to anyone in simulator mode: a socket that never sent `start` stayed open
 * (3,000 were accepted), and a client knowing a call id took over the call's audio by sending `start` first.
 * Now each call's stream needs the call's own single-use capability (start.customParameters.stream_token, given
 * to the carrier with the call), a socket must start within START_TIMEOUT_MS, and a call takes one stream.
 */
import t from 'tap';
import WebSocket from 'ws';
import { API_KEY, api, startTestServer } from '../helpers/server.js';
import { CallCapabilities } from '../../src/auth/call_capability.js';
import { START_TIMEOUT_MS } from '../../src/carriers/media_socket.js';

t.test('capabilities: bound to the call, the purpose and the secret; expiring; single use', async (t) => {
  const caps = new CallCapabilities('a-service-secret-that-is-long-enough', 'media-stream');
  const tok = caps.issue('call_a');
  t.notOk(caps.redeem('call_b', tok), 'another call');
  t.notOk(new CallCapabilities('a-service-secret-that-is-long-enough', 'other').redeem('call_a', tok), 'another purpose');
  t.notOk(new CallCapabilities('another-secret-that-is-long-enough!!', 'media-stream').redeem('call_a', tok), 'another secret');
  const [exp, nonce, sig] = tok.split('.');
  t.notOk(caps.redeem('call_a', `${Number(exp) + 3600}.${nonce}.${sig}`), 'a stretched expiry');
  t.notOk(caps.redeem('call_a', `${exp}.${nonce}.${sig.slice(0, -2)}AA`), 'a tampered signature');
  for (const junk of [undefined, '', 'x', 'a.b.c', 42, `${'9'.repeat(500)}`]) t.notOk(caps.redeem('call_a', junk), `junk ${String(junk).slice(0, 20)}`);
  t.ok(caps.redeem('call_a', tok), 'the right call');
  t.notOk(caps.redeem('call_a', tok), 'but only once');
  const old = caps.issue('call_c', Date.now() - 400_000);
  t.notOk(caps.redeem('call_c', old), 'expired');
});

const srv = await startTestServer();
t.teardown(() => srv.close());
// the simulated carrier's callee is launched by the test instead of dialing in by itself: the test plays every
// carrier socket
const carrierOpts = (srv.services.adapters.simCarrier as unknown as { opts: { callees: { launch(o: unknown): void } } }).opts;
const launched: Array<{ callId: string; carrierCallId: string; mediaUrl: string; parameters: Record<string, string> }> = [];
carrierOpts.callees = { ...carrierOpts.callees, launch: (o) => { launched.push(o as (typeof launched)[number]); } };
const mediaUrl = `${srv.baseUrl.replace(/^http/, 'ws')}/media/twilio`;

function carrierSocket() {
  const ws = new WebSocket(mediaUrl);
  ws.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
  const firstMedia = new Promise<void>((r) => ws.on('message', (d) => { if (String(d).includes('"event":"media"')) r(); }));
  const opened = new Promise<void>((r) => ws.once('open', () => r()));
  const start = async (callId: string, carrierCallId: string, customParameters: Record<string, string>) => {
    await opened;
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(JSON.stringify({ event: 'start', sequenceNumber: '1', streamSid: `MZ${callId.slice(-8)}`, start: { accountSid: 'ACx', streamSid: `MZ${callId.slice(-8)}`,
      callSid: carrierCallId, tracks: ['inbound'], customParameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }));
  };
  return { ws, closed, firstMedia, opened, start };
}

async function dispatched() {
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: { 'x-api-key': API_KEY }, body: { to: '+14155550123', agent_id: 'default' } });
  for (let i = 0; i < 400 && !launched.some((l) => l.callId === d.body.id); i++) await new Promise((r) => setTimeout(r, 25));
  return launched.find((l) => l.callId === d.body.id)!;
}

t.test('a start without the call\'s capability is refused; the capability attaches it once', async (t) => {
  const call = await dispatched();
  t.ok(call.parameters.stream_token, 'the carrier is given a capability as a stream parameter');
  t.notOk(call.mediaUrl.includes(call.parameters.stream_token), 'never in the stream URL');
  const other = await dispatched();

  const thief = carrierSocket();
  await thief.start(call.callId, call.carrierCallId, { call_id: call.callId });
  t.equal((await thief.closed).code, 1008, 'call id alone: refused');
  const swapped = carrierSocket();
  await swapped.start(call.callId, call.carrierCallId, { call_id: call.callId, stream_token: other.parameters.stream_token });
  t.equal((await swapped.closed).code, 1008, "another call's capability: refused");

  // a refused start is not retried on the same socket: the right capability sent next is not redeemed there
  const retry = carrierSocket();
  await retry.start(call.callId, call.carrierCallId, { call_id: call.callId, stream_token: 'guess' });
  await retry.start(call.callId, call.carrierCallId, call.parameters);
  t.equal((await retry.closed).code, 1008, 'a second start on a refused socket: ignored');

  const carrier = carrierSocket();
  await carrier.start(call.callId, call.carrierCallId, call.parameters);
  await carrier.firstMedia;
  t.pass('the right capability: the call attached and its agent speaks');
  const replay = carrierSocket();
  await replay.start(call.callId, call.carrierCallId, call.parameters);
  t.equal((await replay.closed).code, 1008, 'the same capability again: refused (single use, one stream per call)');

  await api(srv.baseUrl, 'POST', `/calls/${call.callId}/hangup`, { headers: { 'x-api-key': API_KEY } });
  await api(srv.baseUrl, 'POST', `/calls/${other.callId}/hangup`, { headers: { 'x-api-key': API_KEY } });
  carrier.ws.close();
});

t.test(`a socket that never starts is closed (1008) after ${START_TIMEOUT_MS} ms`, async (t) => {
  const idle = carrierSocket();
  await idle.opened;
  idle.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  const outcome = await Promise.race([idle.closed, new Promise<string>((r) => setTimeout(() => r('still open'), START_TIMEOUT_MS + 5000))]);
  t.match(outcome, { code: 1008, reason: 'no start in time' });
  idle.ws.terminate();
});

/**
 * The bench's fake providers process (bench/fakes) speaks each documented protocol: started as the benches start
 * it, and checked from the client side with the vendors' own signature code where there is one.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import t from 'tap';
import plivo from 'plivo';
import twilio from 'twilio';
import WebSocket, { WebSocketServer } from 'ws';
import { startFakes } from '../bench/fakes/launch.js';
import { REPLY_TEXT } from '../bench/fakes/settings.js';

const ENV = {
  TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'twilio-token-0123',
  PLIVO_AUTH_ID: 'MA0123456789ABCDEFGH', PLIVO_AUTH_TOKEN: 'plivo-token-0123',
  EXOTEL_ACCOUNT_SID: 'acme1', EXOTEL_API_KEY: 'exo-key', EXOTEL_API_TOKEN: 'exo-token',
  FAKE_CALLER_LEAD_MS: '0',
  FAKE_UNDERRUN_WINDOW_MS: '5000', // a stalled CI runner must not turn the test's 100 ms gap into "a new reply"
};
const fakes = await startFakes(ENV);
t.teardown(() => fakes.stop());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

/** what the service would be: an HTTP server for callbacks and a WebSocket server for media, on port 0 */
async function fakeService() {
  const hits: Array<{ path: string; headers: IncomingMessage['headers']; body: string }> = [];
  let answer = '';
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { hits.push({ path: req.url ?? '', headers: req.headers, body }); res.writeHead(200, { 'content-type': 'application/xml' }).end(answer); });
  });
  const wss = new WebSocketServer({ server: http });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const base = `127.0.0.1:${(http.address() as { port: number }).port}`;
  // when each upgrade request came, before ws answers it: the carrier's stream cannot have opened earlier
  const upgradeAt = new WeakMap<IncomingMessage, number>();
  http.prependListener('upgrade', (req: IncomingMessage) => upgradeAt.set(req, performance.now()));
  const sockets: Array<{ ws: WebSocket; req: IncomingMessage; openedBefore: number; msgs: Array<Record<string, any>>; at: number[] }> = [];
  wss.on('connection', (ws, req) => {
    const s = { ws, req, openedBefore: upgradeAt.get(req)!, msgs: [] as Array<Record<string, any>>, at: [] as number[] };
    sockets.push(s);
    ws.on('message', (d) => { s.msgs.push(JSON.parse(String(d))); s.at.push(performance.now()); });
  });
  return {
    http: `http://${base}`, ws: `ws://${base}`, hits, sockets, setAnswer: (a: string) => { answer = a; },
    close: () => { for (const c of wss.clients) c.terminate(); wss.close(); http.closeAllConnections(); http.close(); },
  };
}

async function until<T>(fn: () => T | undefined, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

t.test('Deepgram: energy end of speech gives a final 150 ms later; Finalize and CloseStream answer', async (t) => {
  const refused = await new Promise<number>((resolve) => {
    const c = new WebSocket(`ws://127.0.0.1:${fakes.port}/v1/listen`);
    c.on('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); c.terminate(); });
    c.on('error', () => {});
  });
  t.equal(refused, 401, 'no Authorization: refused');
  const ws = new WebSocket(`ws://127.0.0.1:${fakes.port}/v1/listen?model=nova-3&encoding=mulaw&sample_rate=8000&interim_results=true&endpointing=300&utterance_end_ms=1000&vad_events=true`,
    { headers: { Authorization: 'Token k' } });
  const msgs: Array<{ at: number; m: Record<string, any> }> = [];
  ws.on('message', (d) => msgs.push({ at: performance.now(), m: JSON.parse(String(d)) }));
  await new Promise((r) => ws.once('open', r));
  const wav = readFileSync('/work/shared/corpus/d01_clean_t0.wav');
  const speech = wav.subarray(58 + 1000 * 8, 58 + 3000 * 8); // two seconds of speech
  for (let i = 0; i < speech.length; i += 1600) ws.send(speech.subarray(i, i + 1600));
  const silence = Buffer.alloc(8 * 400, 0xff);
  ws.send(silence);
  const sentAt = performance.now();
  const fin = await until(() => msgs.find((x) => x.m.type === 'Results' && x.m.is_final));
  t.ok(fin.at - sentAt >= 145, `final ${(fin.at - sentAt).toFixed(0)} ms after the audio that ended the speech`);
  t.ok(fin.at - sentAt < 2000, 'from endpointing, not from the close'); // upper bounds are loose: CI runs tests side by side on 2 cores
  t.match(fin.m, { speech_final: true, channel: { alternatives: [{ transcript: /budget/ }] } });
  t.ok(msgs.some((x) => x.m.type === 'SpeechStarted'), 'SpeechStarted (vad_events)');
  t.ok(msgs.some((x) => x.m.type === 'Results' && x.m.is_final === false), 'interim results');
  // sent right after the final, but it may arrive in a later read than the final the wait above saw
  t.ok(await until(() => msgs.some((x) => x.m.type === 'UtteranceEnd'), 1000).catch(() => false), 'UtteranceEnd (utterance_end_ms)');
  ws.send(speech.subarray(0, 8000));
  const finalizeAt = performance.now();
  ws.send(JSON.stringify({ type: 'Finalize' }));
  const ff = await until(() => msgs.find((x) => x.m.from_finalize === true));
  t.ok(ff.at - finalizeAt >= 145, `Finalize answered after ${(ff.at - finalizeAt).toFixed(0)} ms`);
  t.match(ff.m, { is_final: true, channel: { alternatives: [{ transcript: /budget/ }] } });
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  const code = await new Promise((r) => ws.once('close', r));
  t.equal(code, 1000);
  t.equal(msgs.at(-1)?.m.type, 'Metadata', 'CloseStream: Metadata, then close');
});

t.test('Chat Completions SSE: first token after 300 ms, then 40 tokens/s, the fixed reply, [DONE]', async (t) => {
  t.equal((await fetch(`${fakes.baseUrl}/v1/chat/completions`, { method: 'POST', body: '{}' })).status, 401);
  const t0 = performance.now();
  const res = await fetch(`${fakes.baseUrl}/v1/chat/completions`, {
    method: 'POST', headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], stream: true, stream_options: { include_usage: true } }),
  });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  const times: number[] = [];
  let text = '';
  let buf = '';
  const events: string[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += Buffer.from(chunk).toString();
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const ev = buf.slice(0, i); buf = buf.slice(i + 2);
      events.push(ev);
      if (ev === 'data: [DONE]') continue;
      const c = JSON.parse(ev.slice(6)) as { choices: Array<{ delta: { content?: string } }> };
      if (c.choices[0]?.delta.content) { text += c.choices[0].delta.content; times.push(performance.now() - t0); }
    }
  }
  t.equal(text, REPLY_TEXT);
  t.ok(times[0] >= 295 && times[0] < 1500, `first token at ${times[0].toFixed(0)} ms`);
  // token i is due 300 ms + i / 40 s after the request and timers never fire early: a stall only delays (and bunches) them
  const due = 300 + ((times.length - 1) * 1000) / 40;
  t.ok(times.at(-1)! >= due - 5, `last of ${times.length} tokens at ${times.at(-1)!.toFixed(0)} ms, due at ${due} ms (40 tokens/s at most)`);
  const rate = ((times.length - 1) * 1000) / (times.at(-1)! - times[0]);
  t.ok(rate > 10, `${rate.toFixed(1)} tokens/s`); // not too slow: timing only, so loose
  t.equal(events.at(-1), 'data: [DONE]');
  t.match(JSON.parse(events.at(-2)!.slice(6)), { choices: [], usage: { completion_tokens: Number } }, 'usage chunk before [DONE]');
  t.match(JSON.parse(events.at(-3)!.slice(6)), { choices: [{ finish_reason: 'stop' }] });
});

t.test('ElevenLabs HTTP stream: ulaw_8000 bytes, first after 100 ms, faster than real time', async (t) => {
  const text = 'Hello there, this is a test sentence.';
  const t0 = performance.now();
  const res = await fetch(`${fakes.baseUrl}/v1/text-to-speech/voice1/stream?output_format=ulaw_8000`, {
    method: 'POST', headers: { 'xi-api-key': 'k', 'content-type': 'application/json' }, body: JSON.stringify({ text, model_id: 'eleven_flash_v2_5' }),
  });
  let first = 0; let bytes = 0;
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) { first ||= performance.now() - t0; bytes += c.length; }
  const total = performance.now() - t0;
  t.ok(first >= 95 && first < 1000, `first byte at ${first.toFixed(0)} ms`);
  t.equal(bytes, Math.ceil((text.length * 65) / 100) * 800, '65 ms of 8 kHz mu-law per character');
  t.ok(total < bytes / 8, `${(bytes / 8).toFixed(0)} ms of audio in ${total.toFixed(0)} ms`);
  t.equal((await fetch(`${fakes.baseUrl}/v1/text-to-speech/voice1/stream?output_format=mp3_44100_128`, {
    method: 'POST', headers: { 'xi-api-key': 'k' }, body: JSON.stringify({ text }) })).status, 422);
});

t.test('Twilio: Calls create, signed callbacks and upgrade, real-time media, marks, hang-up', async (t) => {
  const svc = await fakeService();
  t.teardown(svc.close);
  const { TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: token } = ENV;
  const calls = `${fakes.baseUrl}/2010-04-01/Accounts/${sid}/Calls.json`;
  t.equal((await fetch(calls, { method: 'POST', headers: { authorization: basic(sid, 'wrong') }, body: '' })).status, 401);
  const streamUrl = `${svc.ws}/v1/media/twilio`;
  const form = new URLSearchParams({ To: '+14155550100', From: '+14155550199', StatusCallback: `${svc.http}/v1/carriers/twilio/status`,
    Twiml: `<Response><Connect><Stream url="${streamUrl}"><Parameter name="call_id" value="call_1"/></Stream></Connect></Response>`,
    MachineDetection: 'Enable', AsyncAmd: 'true', AsyncAmdStatusCallback: `${svc.http}/v1/carriers/twilio/amd` });
  for (const e of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', e);
  const created = await fetch(calls, { method: 'POST', headers: { authorization: basic(sid, token), 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  t.equal(created.status, 201);
  const call = await created.json() as { sid: string; status: string };
  t.match(call, { sid: /^CA[0-9a-f]{32}$/, status: 'queued' });
  const s = await until(() => svc.sockets[0]);
  t.ok(twilio.validateRequest(token, String(s.req.headers['x-twilio-signature']), streamUrl, {}), 'upgrade signed over the ws URL (twilio.validateRequest)');
  await until(() => s.msgs.filter((m) => m.event === 'media').length >= 10);
  t.match(s.msgs[0], { event: 'connected', protocol: 'Call' });
  t.match(s.msgs[1], { event: 'start', start: { callSid: call.sid, customParameters: { call_id: 'call_1' }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } } });
  const media = s.msgs.filter((m) => m.event === 'media');
  t.equal(Buffer.from(media[0].media.payload, 'base64').length, 160);
  t.same(media.slice(0, 3).map((m) => m.media.chunk), ['1', '2', '3'], 'chunks are strings counting from 1');
  const idx = s.msgs.indexOf(media[0]);
  const tenth = s.at[idx + 9] - s.openedBefore;
  t.ok(tenth >= 179, `the 10th frame ${tenth.toFixed(0)} ms after the upgrade, not before 180 ms (real time, not faster)`);
  const span = s.at[idx + 9] - s.at[idx];
  t.ok(span < 2000, `10 frames over ${span.toFixed(0)} ms`); // not slower than real time: timing only, so loose
  // 5 frames, a mark, a 100 ms pause once they played (an underrun), 5 more, a mark
  const streamSid = s.msgs[1].streamSid;
  const sendAudio = (frames: number) => s.ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.alloc(160 * frames, 0x7f).toString('base64') } }));
  const markAt = (name: string) => { const i = s.msgs.findIndex((x) => x.event === 'mark' && x.mark.name === name); return i < 0 ? undefined : s.at[i]; };
  const t0 = performance.now();
  sendAudio(5); s.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'a' } }));
  const markA = await until(() => markAt('a')); // echoed when the phone's buffer ran dry, not held for more audio
  t.ok(markA - t0 >= 95, `mark a echoed after its 100 ms of audio played (${(markA - t0).toFixed(0)} ms)`);
  t.ok(markA - t0 < 2000, 'and soon after'); // timing only, so loose
  await sleep(100); // the gap in the reply under test
  const sent2 = performance.now();
  sendAudio(5); s.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'b' } }));
  const markB = await until(() => markAt('b'));
  t.same(s.msgs.filter((x) => x.event === 'mark').map((m) => m.mark.name), ['a', 'b']);
  const st = (await fakes.stats()).carriers.twilio;
  t.equal(st.underruns, 1, 'the 100 ms gap inside the reply is one underrun');
  // bounds from our own clock: the buffer ran dry before mark a reached us and 100 ms after we sent the first 5 frames;
  // the refill came after we sent it and before mark b reached us
  t.ok(st.gapMs >= sent2 - markA - 1 && st.gapMs <= markB - t0 - 100 + 1, `gap ${st.gapMs.toFixed(0)} ms (paused ${(sent2 - markA).toFixed(0)} ms)`);
  t.equal(st.agentFrames, 10);
  sendAudio(50); s.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'c' } }));
  s.ws.send(JSON.stringify({ event: 'clear', streamSid }));
  await until(() => s.msgs.find((m) => m.event === 'mark' && m.mark.name === 'c'));
  t.ok(svc.hits.some((h) => h.path.endsWith('/amd') && new URLSearchParams(h.body).get('AnsweredBy') === 'human'), 'async AMD result');
  const hang = await fetch(`${fakes.baseUrl}/2010-04-01/Accounts/${sid}/Calls/${call.sid}.json`, {
    method: 'POST', headers: { authorization: basic(sid, token), 'content-type': 'application/x-www-form-urlencoded' }, body: 'Status=completed' });
  t.equal(hang.status, 200);
  await until(() => s.msgs.find((m) => m.event === 'stop'));
  await until(() => svc.hits.find((h) => new URLSearchParams(h.body).get('CallStatus') === 'completed'));
  const status = svc.hits.filter((h) => h.path.endsWith('/status'));
  t.same(status.map((h) => new URLSearchParams(h.body).get('CallStatus')), ['initiated', 'ringing', 'in-progress', 'completed']);
  for (const h of svc.hits) {
    const params = Object.fromEntries(new URLSearchParams(h.body));
    t.ok(twilio.validateRequest(token, String(h.headers['x-twilio-signature']), `${svc.http}${h.path}`, params), `${h.path} signed`);
  }
  t.equal((await fetch(`${fakes.baseUrl}/2010-04-01/Accounts/${sid}/Calls/CAnothing.json`, { method: 'POST', headers: { authorization: basic(sid, token) }, body: 'Status=completed' })).status, 404);
});

t.test('Plivo: Make Call, V3-signed answer_url, stream protocol, checkpoint and clearAudio, DELETE', async (t) => {
  const svc = await fakeService();
  t.teardown(svc.close);
  const { PLIVO_AUTH_ID: id, PLIVO_AUTH_TOKEN: token } = ENV;
  svc.setAnswer(`<?xml version="1.0" encoding="UTF-8"?><Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" extraHeaders="callId=c1">${svc.ws}/v1/media/plivo/tok</Stream></Response>`);
  const res = await fetch(`${fakes.baseUrl}/v1/Account/${id}/Call/`, { method: 'POST', headers: { authorization: basic(id, token), 'content-type': 'application/json' },
    body: JSON.stringify({ from: '14155550199', to: '14155550100', answer_url: `${svc.http}/v1/carriers/plivo/answer`, hangup_url: `${svc.http}/v1/carriers/plivo/hangup` }) });
  t.equal(res.status, 201);
  t.match(await res.json(), { message: 'call fired', request_uuid: String });
  const s = await until(() => svc.sockets[0]);
  const answer = svc.hits[0];
  const params = Object.fromEntries(new URLSearchParams(answer.body));
  t.match(params, { Direction: 'outbound', CallStatus: 'in-progress' });
  t.ok(plivo.validateV3Signature('POST', `${svc.http}${answer.path}`, String(answer.headers['x-plivo-signature-v3-nonce']), token,
    String(answer.headers['x-plivo-signature-v3']), params), 'answer_url signed (plivo.validateV3Signature)');
  await until(() => s.msgs.filter((m) => m.event === 'media').length >= 3);
  t.match(s.msgs[0], { event: 'start', sequenceNumber: 1, start: { callId: params.CallUUID, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: 'callId=c1' });
  const streamId = s.msgs[0].start.streamId;
  t.match(s.msgs[1], { event: 'media', sequenceNumber: 2, streamId, media: { track: 'inbound', payload: String } });
  s.ws.send(JSON.stringify({ event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: Buffer.alloc(800, 0x7f).toString('base64') } }));
  s.ws.send(JSON.stringify({ event: 'checkpoint', streamId, name: 'p1' }));
  const played = await until(() => s.msgs.find((m) => m.event === 'playedStream'));
  t.same(played, { event: 'playedStream', sequenceNumber: played.sequenceNumber, streamId, name: 'p1' });
  s.ws.send(JSON.stringify({ event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: Buffer.alloc(8000, 0x7f).toString('base64') } }));
  s.ws.send(JSON.stringify({ event: 'checkpoint', streamId, name: 'p2' }));
  s.ws.send(JSON.stringify({ event: 'clearAudio', streamId }));
  await until(() => s.msgs.find((m) => m.event === 'clearedAudio'));
  await sleep(100);
  t.notOk(s.msgs.find((m) => m.name === 'p2'), 'a cleared checkpoint is never reported played');
  const del = await fetch(`${fakes.baseUrl}/v1/Account/${id}/Call/${params.CallUUID}/`, { method: 'DELETE', headers: { authorization: basic(id, token) } });
  t.equal(del.status, 204);
  const hup = await until(() => svc.hits.find((h) => h.path.endsWith('/hangup')));
  t.match(Object.fromEntries(new URLSearchParams(hup.body)), { CallStatus: 'completed', HangupCause: 'NORMAL_CLEARING' });
  t.equal((await fakes.stats()).carriers.plivo.protocolErrors, 0);
});

t.test('Exotel: Calls/connect, snake_case stream with PCM in 100 ms chunks, marks, bot close ends the call', async (t) => {
  const svc = await fakeService();
  t.teardown(svc.close);
  const { EXOTEL_ACCOUNT_SID: sid, EXOTEL_API_KEY: key, EXOTEL_API_TOKEN: token } = ENV;
  const res = await fetch(`${fakes.baseUrl}/v1/Accounts/${sid}/Calls/connect`, { method: 'POST', headers: { authorization: basic(key, token), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ From: '+919812345678', CallerId: '08012345678', StreamUrl: `${svc.ws}/v1/media/exotel?cap=x1`, StatusCallback: `${svc.http}/v1/carriers/exotel/status` }) });
  t.equal(res.status, 200);
  const s = await until(() => svc.sockets[0]);
  await until(() => s.msgs.filter((m) => m.event === 'media').length >= 2);
  t.same(s.msgs[0], { event: 'connected' });
  t.match(s.msgs[1], { event: 'start', sequence_number: '1', start: { custom_parameters: { cap: 'x1' }, media_format: { encoding: 'audio/x-raw', sample_rate: '8000' } } });
  t.equal(Buffer.from(s.msgs[2].media.payload, 'base64').length, 1600, '100 ms of 16-bit 8 kHz PCM');
  const streamSid = s.msgs[1].stream_sid;
  s.ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.alloc(3200).toString('base64') } }));
  s.ws.send(JSON.stringify({ event: 'mark', stream_sid: streamSid, mark: { name: 'm1' } }));
  const mark = await until(() => s.msgs.find((m) => m.event === 'mark'));
  t.match(mark, { stream_sid: streamSid, mark: { name: 'm1' } });
  s.ws.send(JSON.stringify({ event: 'media', stream_sid: streamSid, media: { payload: Buffer.alloc(100).toString('base64') } }));
  // the stats request and the message travel on separate connections
  let errors = 0;
  for (const end = Date.now() + 5000; !(errors = (await fakes.stats()).carriers.exotel.protocolErrors) && Date.now() < end;) await sleep(10);
  t.equal(errors, 1, 'a payload not a multiple of 320 bytes is a protocol error');
  s.ws.close();
  const hit = await until(() => svc.hits.find((h) => h.path.endsWith('/status')));
  t.match(Object.fromEntries(new URLSearchParams(hit.body)), { Status: 'completed', EventType: 'terminal' });
});

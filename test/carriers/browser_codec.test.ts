/**
 * The browser leg's protocol and codec, without a call: strict parsing, the 16 -> 8 kHz stream, and the socket
 * (the shared media socket with the browser codec, on port 0): audio in any chunking becomes 20 ms frames, the
 * agent's frames go out in the leg's encoding, marks and clear, and every bad input closes the socket with its code.
 */
import { createServer, type Server } from 'node:http';
import t from 'tap';
import WebSocket from 'ws';
import { mulawEncode, resample } from '../../src/audio/index.js';
import { createLogger } from '../../src/log.js';
import { browserMediaSocket, BrowserProtocolError, BrowserStream, parseBrowserMessage } from '../../src/carriers/browser/index.js';
import type { MediaStream } from '../../src/media/stream.js';

const CALL = 'call_0123456789abcdef01234567';
const start = (o: Record<string, unknown> = {}) => JSON.stringify({ event: 'start', call_id: CALL, token: 'good', media_format: { encoding: 'pcm16', sample_rate: 16000 }, ...o });

t.test('messages parse strictly', async (t) => {
  t.same(parseBrowserMessage(start()), { event: 'start', call_id: CALL, token: 'good', media_format: { encoding: 'pcm16', sample_rate: 16000 } });
  t.same(parseBrowserMessage('{"event":"media","payload":"AAD/fw=="}'), { event: 'media', payload: 'AAD/fw==' });
  t.same(parseBrowserMessage('{"event":"mark","name":"r1/e0/f3"}'), { event: 'mark', name: 'r1/e0/f3' });
  t.same(parseBrowserMessage('{"event":"dtmf","digit":"#"}'), { event: 'dtmf', digit: '#' });
  t.same(parseBrowserMessage('{"event":"stop"}'), { event: 'stop' });
  const bad = [
    'nope', '[]', '{}', '{"event":5}', '{"event":"hello"}', '{"event":"stop","x":1}',
    '{"event":"media"}', '{"event":"media","payload":5}', '{"event":"media","payload":"not base64!"}', '{"event":"media","payload":"AAA"}',
    `{"event":"media","payload":"${'A'.repeat(50_000)}"}`,
    '{"event":"mark","name":""', `{"event":"mark","name":"${'x'.repeat(200)}"}`, '{"event":"mark"}',
    '{"event":"dtmf","digit":"12"}', '{"event":"dtmf","digit":"x"}',
    start({ call_id: 'call_1' }), start({ token: 7 }), start({ token: 'x'.repeat(300) }), start({ media_format: 'pcm16' }),
    start({ media_format: { encoding: 'pcm16' } }), start({ media_format: { encoding: 'pcm16', sample_rate: 16000, channels: 1 } }), start({ extra: true }),
  ];
  for (const b of bad) t.throws(() => parseBrowserMessage(b), BrowserProtocolError, b.slice(0, 80));
  let deep = '{"event":"stop","x":';
  for (let i = 0; i < 10_000; i++) deep += '[';
  t.throws(() => parseBrowserMessage(deep), BrowserProtocolError, 'deep nesting is refused without a stack overflow');
});

interface Harness { url: string; streams: MediaStream[]; redeemed: string[]; close(): Promise<void> }

async function harness(o: { accept?: boolean; startTimeoutMs?: number } = {}): Promise<Harness> {
  const streams: MediaStream[] = [];
  const redeemed: string[] = [];
  const socket = browserMediaSocket({
    log: createLogger('silent'),
    capabilities: { redeem: (callId, token) => { redeemed.push(callId); return token === 'good' && redeemed.length === 1; } },
    onStream: (_id, s) => { if (o.accept === false) return false; streams.push(s); return true; },
    startTimeoutMs: o.startTimeoutMs,
  });
  const server: Server = createServer();
  server.on('upgrade', socket);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}/v1/media/browser`, streams, redeemed,
    close: async () => { socket.closeAll(); await new Promise((r) => server.close(r)); },
  };
}

async function connect(url: string) {
  const ws = new WebSocket(url);
  const got: Array<Record<string, any>> = [];
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })));
  ws.on('message', (d) => got.push(JSON.parse(String(d))));
  await new Promise((r) => ws.once('open', r));
  return { ws, got, closed };
}

const until = async (f: () => boolean) => { while (!f()) await new Promise((r) => setTimeout(r, 5)); };

t.test('a leg: frames in, audio, marks and clear out, stop', async (t) => {
  const h = await harness();
  t.teardown(h.close);
  const c = await connect(h.url);
  c.ws.send(start());
  await until(() => h.streams.length === 1);
  const leg = h.streams[0] as BrowserStream;
  const frames: Int16Array[] = [];
  const marks: string[] = [];
  let ended: string | undefined;
  // audio sent before the session attaches is kept, and the leg hears `started` once it does
  const pcm = new Int16Array(16_000 / 10).map((_, i) => Math.round(9000 * Math.sin(i / 5)));
  const bytes = Buffer.from(pcm.buffer);
  c.ws.send(JSON.stringify({ event: 'media', payload: bytes.subarray(0, 333).toString('base64') })); // an odd cut: half a sample
  c.ws.send(JSON.stringify({ event: 'media', payload: bytes.subarray(333).toString('base64') }));
  c.ws.send('{"event":"dtmf","digit":"5"}');
  c.ws.send('{"event":"mark","name":"m1"}');
  await new Promise((r) => setTimeout(r, 50));
  const digits: string[] = [];
  leg.attach({ audio: (f) => frames.push(f), mark: (m) => marks.push(m), dtmf: (d) => digits.push(d), ended: (why) => { ended = why; } });
  await until(() => c.got.some((m) => m.event === 'started'));
  t.same(c.got[0], { event: 'started', call_id: CALL, media_format: { encoding: 'pcm16', sample_rate: 8000 } });
  await until(() => marks.length === 1);
  t.ok(frames.length >= 4 && frames.every((f) => f.length === 160), `100 ms at 16 kHz became 20 ms frames at 8 kHz (${frames.length}, the last waits for more)`);
  t.same(digits, ['5']);
  t.same(marks, ['m1']);

  leg.batch(() => { leg.sendMedia(mulawEncode(new Int16Array(160).fill(1000))); leg.sendMark('r1/e0/f1'); });
  leg.sendClear();
  await until(() => c.got.length >= 4);
  const media = c.got[1];
  t.equal(media.event, 'media');
  const out = Buffer.from(media.payload, 'base64');
  t.equal(out.length, 320, 'a 20 ms frame as PCM16 at 8 kHz');
  t.ok(Math.abs(out.readInt16LE(0) - 1000) < 40, 'the agent\'s sample, through mu-law');
  t.same(c.got.slice(2), [{ event: 'mark', name: 'r1/e0/f1' }, { event: 'clear' }]);
  leg.sendItem({ type: 'transcript', speaker: 'agent', text: 'hi', seq: 3 });
  await until(() => c.got.length === 5);
  t.same(c.got[4], { event: 'item', item: { type: 'transcript', speaker: 'agent', text: 'hi', seq: 3 } });

  c.ws.send('{"event":"stop"}');
  await until(() => ended !== undefined);
  t.equal(ended, 'stop', 'stop is the caller hanging up');
  leg.close();
  t.match(await c.closed, { code: 1000 });
});

t.test('a mu-law leg hears mu-law', async (t) => {
  const h = await harness();
  t.teardown(h.close);
  const c = await connect(h.url);
  c.ws.send(start({ media_format: { encoding: 'mulaw', sample_rate: 8000 } }));
  await until(() => h.streams.length === 1);
  const leg = h.streams[0];
  const frames: Int16Array[] = [];
  leg.attach({ audio: (f) => frames.push(f), mark: () => {}, dtmf: () => {}, ended: () => {} });
  c.ws.send(JSON.stringify({ event: 'media', payload: Buffer.from(mulawEncode(new Int16Array(400).fill(-2000))).toString('base64') }));
  await until(() => frames.length === 2);
  t.ok(frames.every((f) => f.length === 160 && Math.abs(f[0] + 2000) < 100));
  const frame = mulawEncode(new Int16Array(160).fill(500));
  leg.sendMedia(frame);
  await until(() => c.got.some((m) => m.event === 'media'));
  t.same(Buffer.from(c.got.find((m) => m.event === 'media')!.payload, 'base64'), Buffer.from(frame), 'the frame as it is');
  c.ws.close();
});

t.test('bad input closes the leg cleanly with its code', async (t) => {
  const h = await harness({ startTimeoutMs: 100 });
  t.teardown(h.close);
  const closeOf = async (send: (ws: WebSocket) => void) => { const c = await connect(h.url); send(c.ws); return c.closed; };
  t.match(await closeOf((ws) => ws.send('not json')), { code: 1007 }, 'not JSON');
  t.match(await closeOf((ws) => ws.send(Buffer.from([1, 2, 3]))), { code: 1003 }, 'binary');
  t.match(await closeOf((ws) => ws.send('x'.repeat((1 << 20) + 1))), { code: 1009 }, 'over 1 MiB');
  t.match(await closeOf(() => {}), { code: 1008, reason: 'no start in time' });
  t.match(await closeOf((ws) => ws.send('{"event":"media","payload":"AAAA"}')), { code: 1008, reason: 'no start in time' }, 'media before start is not believed');
  t.match(await closeOf((ws) => ws.send(start({ media_format: { encoding: 'mulaw', sample_rate: 16000 } }))), { code: 1003, reason: /unsupported media_format/ });
  t.match(await closeOf((ws) => ws.send(start({ token: 'bad' }))), { code: 1008, reason: 'not authorized for this call' });
  t.match(await closeOf((ws) => ws.send(start())), { code: 1008, reason: 'not authorized for this call' }, 'a token is good once');
  t.equal(h.streams.length, 0);
});

t.test('an accepted leg: a second start, over-long media, an unknown call', async (t) => {
  const h = await harness();
  t.teardown(h.close);
  let c = await connect(h.url);
  c.ws.send(start());
  await until(() => h.streams.length === 1);
  c.ws.send(start());
  t.match(await c.closed, { code: 1008, reason: 'a second start' });

  const h2 = await harness();
  t.teardown(h2.close);
  c = await connect(h2.url);
  c.ws.send(start({ media_format: { encoding: 'mulaw', sample_rate: 8000 } }));
  await until(() => h2.streams.length === 1);
  h2.streams[0].attach({ audio: () => {}, mark: () => {}, dtmf: () => {}, ended: () => {} });
  c.ws.send(JSON.stringify({ event: 'media', payload: Buffer.alloc(8001).toString('base64') }));
  t.match(await c.closed, { code: 1009 }, 'over 1 s of audio in one message');

  const h3 = await harness({ accept: false });
  t.teardown(h3.close);
  c = await connect(h3.url);
  c.ws.send(start());
  t.match(await c.closed, { code: 1008, reason: 'unknown call' });
  t.notOk(c.got.some((m) => m.event === 'started'), 'a leg the call did not take is never told it started');
});

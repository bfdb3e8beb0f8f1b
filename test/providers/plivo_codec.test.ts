/**
 * The Plivo media codec on its own: the documented messages parse (numbers or strings, both extra_headers
 * separators, `played` as the old name of playedStream), caller audio of any chunk size becomes 20 ms frames,
 * a playout tick's frames leave as one playAudio followed by its checkpoint, clear and echoes map as documented.
 */
import t from 'tap';
import type { WebSocket } from 'ws';
import { mulawEncode } from '../../src/audio/index.js';
import { parseExtraHeaders, parsePlivoMessage, PlivoProtocolError, PlivoStream } from '../../src/carriers/plivo/codec.js';

function socket() {
  const sent: any[] = [];
  const ws = { OPEN: 1, readyState: 1, send: (s: string) => sent.push(JSON.parse(s)), close: () => { ws.readyState = 3; } };
  return { ws: ws as unknown as WebSocket, sent };
}

t.test('the documented messages parse', async (t) => {
  t.match(parsePlivoMessage(JSON.stringify({ event: 'start', sequenceNumber: 1, start: { callId: '12345678-1234-1234-1234-123456789abc', streamId: '87654321-4321-4321-4321-cba987654321',
    accountId: 'MAXXXXXXXXXXXXXXXXXX', tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: 'userId=12345;sessionId=abc-xyz' })),
  { event: 'start', callId: '12345678-1234-1234-1234-123456789abc', streamId: '87654321-4321-4321-4321-cba987654321', encoding: 'audio/x-mulaw', sampleRate: 8000,
    extraHeaders: { userId: '12345', sessionId: 'abc-xyz' } });
  t.match(parsePlivoMessage(JSON.stringify({ event: 'media', sequenceNumber: 42, streamId: 's', media: { track: 'inbound', timestamp: '1705312200000', chunk: 41, payload: '//8=' } })),
    { event: 'media', track: 'inbound', payload: '//8=' });
  t.same(parsePlivoMessage('{"event":"dtmf","sequenceNumber":50,"streamId":"s","dtmf":{"track":"inbound","digit":5,"timestamp":"1"}}'), { event: 'dtmf', digit: '5' });
  t.same(parsePlivoMessage('{"event":"playedStream","sequenceNumber":75,"streamId":"s","name":"r1/e0/f5"}'), { event: 'playedStream', name: 'r1/e0/f5' });
  t.same(parsePlivoMessage('{"event":"played","streamId":"s","name":"x"}'), { event: 'playedStream', name: 'x' }, 'the older event name');
  t.same(parsePlivoMessage('{"sequenceNumber":0,"event":"clearedAudio","streamId":"s"}'), { event: 'clearedAudio' });
  t.same(parsePlivoMessage('{"event":"stop"}'), { event: 'stop' });
  t.same(parsePlivoMessage('{"event":"somethingNew"}'), { event: 'other', name: 'somethingNew' });
  for (const bad of ['nope', '[]', '{"event":"start"}', '{"event":"media"}', '{"event":"playedStream"}']) t.throws(() => parsePlivoMessage(bad), PlivoProtocolError, bad);
  t.same(parseExtraHeaders('callid=ab,token=cd'), { callid: 'ab', token: 'cd' }, 'the XML attribute separator');
  t.same(parseExtraHeaders(undefined), {});
});

t.test('caller audio of any size becomes 20 ms frames, replayed in order once the call attaches', async (t) => {
  const { ws } = socket();
  const s = new PlivoStream(ws, 'sid', 'uuid', { call_id: 'call_x' });
  const pcm = Int16Array.from({ length: 400 }, (_, i) => (i % 50) * 100);
  const mulaw = Buffer.from(mulawEncode(pcm));
  s.deliver({ event: 'media', track: 'inbound', payload: mulaw.subarray(0, 250).toString('base64') });
  s.deliver({ event: 'dtmf', digit: '7' });
  s.deliver({ event: 'media', track: 'outbound', payload: mulaw.toString('base64') }); // not the caller's
  s.deliver({ event: 'media', track: 'inbound', payload: mulaw.subarray(250).toString('base64') });
  const got: string[] = [];
  const frames: Int16Array[] = [];
  s.attach({ audio: (f) => { frames.push(f); got.push(`audio${f.length}`); }, mark: (n) => got.push(`mark:${n}`), dtmf: (d) => got.push(`dtmf:${d}`), ended: (r) => got.push(`ended:${r}`) });
  s.deliver({ event: 'playedStream', name: 'r1/e0/f3' });
  s.deliver({ event: 'clearedAudio' });
  s.deliver({ event: 'stop' });
  s.deliver({ event: 'playedStream', name: 'late' });
  t.same(got, ['audio160', 'dtmf:7', 'audio160', 'mark:r1/e0/f3', 'ended:stop']);
  t.equal(frames.length, 2, '400 samples: two frames, 80 carried');
});

t.test('a tick\'s frames leave as one playAudio, then the checkpoint; clear is clearAudio', async (t) => {
  const { ws, sent } = socket();
  const s = new PlivoStream(ws, 'stream-1', 'uuid', {});
  const frame = (b: number) => new Uint8Array(160).fill(b);
  s.batch(() => { s.sendMedia(frame(1)); s.sendMedia(frame(2)); s.sendMedia(frame(3)); s.sendMark('r1/e0/f3'); });
  t.equal(sent.length, 2);
  t.same(Object.keys(sent[0]), ['event', 'media']);
  t.match(sent[0], { event: 'playAudio', media: { contentType: 'audio/x-mulaw', sampleRate: 8000 } });
  const bytes = Buffer.from(sent[0].media.payload, 'base64');
  t.equal(bytes.length, 480);
  t.same([bytes[0], bytes[160], bytes[320]], [1, 2, 3], 'in order');
  t.same(sent[1], { event: 'checkpoint', streamId: 'stream-1', name: 'r1/e0/f3' });
  s.batch(() => { s.sendMedia(frame(4)); }); // no mark: flushed at the end of the batch
  t.equal(Buffer.from(sent[2].media.payload, 'base64').length, 160);
  s.sendMedia(frame(5)); // outside a batch: at once
  t.equal(sent.length, 4);
  s.sendClear();
  t.same(sent[4], { event: 'clearAudio', streamId: 'stream-1' });
  s.close();
  s.sendMedia(frame(6));
  t.equal(sent.length, 5, 'nothing is sent on a closed socket');
});

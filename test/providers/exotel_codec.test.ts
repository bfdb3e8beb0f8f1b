/**
 * The Exotel media codec on its own: the documented snake_case messages parse, and so do the camelCase and
 * number/string variants Exotel's own samples show; 16-bit PCM of any size (8 or 16 kHz) becomes 20 ms frames at
 * 8 kHz; outbound audio leaves in whole 320-byte blocks of at least 100 ms (200 ms to start a burst), each mark after
 * the chunk holding its audio, a tail padded to 100 ms; clear drops what is held.
 */
import t from 'tap';
import type { WebSocket } from 'ws';
import { mulawEncode } from '../../src/audio/index.js';
import { ExotelProtocolError, ExotelStream, parseExotelMessage } from '../../src/carriers/exotel/codec.js';

function socket() {
  const sent: any[] = [];
  const ws = { OPEN: 1, readyState: 1, send: (s: string) => sent.push(JSON.parse(s)), close: () => {} };
  return { ws: ws as unknown as WebSocket, sent };
}
const pcmBytes = (samples: number[]) => { const b = Buffer.alloc(samples.length * 2); samples.forEach((v, i) => b.writeInt16LE(v, i * 2)); return b; };

t.test('documented snake_case and the camelCase variants parse', async (t) => {
  t.same(parseExotelMessage('{"event":"connected"}'), { event: 'connected' });
  const doc = { event: 'start', sequence_number: '1', stream_sid: 'MZ1', start: { stream_sid: 'MZ1', call_sid: 'CA1', account_sid: 'AC1', from: '+919876543210',
    to: '+918047491899', custom_parameters: { key1: 'value1' }, media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' } } };
  t.same(parseExotelMessage(JSON.stringify(doc)), { event: 'start', streamSid: 'MZ1', callSid: 'CA1', accountSid: 'AC1', customParameters: { key1: 'value1' },
    encoding: 'audio/x-raw', sampleRate: 8000 });
  const camel = { event: 'start', streamSid: 'MZ2', start: { callSid: 'CA2', accountSid: 'AC2', customParameters: { n: 3 }, mediaFormat: { encoding: 'linear16', sampleRate: 16000 } } };
  t.match(parseExotelMessage(JSON.stringify(camel)), { streamSid: 'MZ2', callSid: 'CA2', customParameters: { n: '3' }, sampleRate: 16000 }, 'the stream id from the top level');
  t.same(parseExotelMessage('{"event":"media","sequence_number":"3","stream_sid":"MZ1","media":{"chunk":"2","timestamp":"200","payload":"AAA="}}'), { event: 'media', payload: 'AAA=' });
  t.same(parseExotelMessage('{"event":"dtmf","sequence_number":"7","stream_sid":"MZ1","dtmf":{"digit":5,"duration":"100"}}'), { event: 'dtmf', digit: '5' });
  t.same(parseExotelMessage('{"event":"mark","sequence_number":"15","streamSid":"MZ1","mark":{"name":"r1/e0/f5"}}'), { event: 'mark', name: 'r1/e0/f5' });
  t.same(parseExotelMessage('{"event":"stop","sequence_number":"20","stream_sid":"MZ1","stop":{"call_sid":"CA1","account_sid":"AC1","reason":"callended"}}'), { event: 'stop', reason: 'callended' });
  t.same(parseExotelMessage('{"event":"stop"}'), { event: 'stop', reason: '' });
  for (const bad of ['x', '{"event":"start","start":{}}', '{"event":"media","media":{}}', '{"event":"mark"}']) t.throws(() => parseExotelMessage(bad), ExotelProtocolError, bad);
});

t.test('inbound PCM of any size becomes 8 kHz 20 ms frames; 16 kHz is resampled', async (t) => {
  const { ws } = socket();
  const s = new ExotelStream(ws, 'MZ1', 'CA1', {}, 8000);
  const frames: Int16Array[] = [];
  const events: string[] = [];
  s.attach({ audio: (f) => frames.push(f), mark: (n) => events.push(`mark:${n}`), dtmf: (d) => events.push(`dtmf:${d}`), ended: (r) => events.push(`ended:${r}`) });
  const samples = Array.from({ length: 800 }, (_, i) => i - 400);
  const b = pcmBytes(samples);
  s.deliver({ event: 'media', payload: b.subarray(0, 1000).toString('base64') }); // 500 samples: 3 frames, 20 carried
  s.deliver({ event: 'media', payload: b.subarray(1000).toString('base64') });
  t.equal(frames.length, 5);
  t.same(Array.from(frames[3].subarray(0, 3)), [80, 81, 82], 'samples in order across chunks');
  s.deliver({ event: 'mark', name: 'm1' });
  s.deliver({ event: 'dtmf', digit: '#' });
  s.deliver({ event: 'stop', reason: 'callended' });
  t.same(events, ['mark:m1', 'dtmf:#', 'ended:stop']);
  const wide = new ExotelStream(socket().ws, 'MZ2', 'CA2', {}, 16000);
  const wideFrames: Int16Array[] = [];
  wide.attach({ audio: (f) => wideFrames.push(f), mark: () => {}, dtmf: () => {}, ended: () => {} });
  wide.deliver({ event: 'media', payload: Buffer.alloc(3200).toString('base64') }); // 100 ms at 16 kHz
  t.equal(wideFrames.length, 5, '100 ms at 16 kHz: five 8 kHz frames');
});

t.test('outbound: whole 320-byte blocks, 200 ms to start a burst then 100 ms, marks after their chunk, a padded tail, clear', async (t) => {
  const { ws, sent } = socket();
  const s = new ExotelStream(ws, 'MZ1', 'CA1', {}, 8000);
  const frame = (v: number) => mulawEncode(new Int16Array(160).fill(v));
  s.batch(() => { for (let i = 0; i < 5; i++) s.sendMedia(frame(1000)); s.sendMark('r1/e0/f5'); });
  t.equal(sent.length, 0, 'a burst starts with 200 ms, so the next chunk is there before this one has played');
  s.batch(() => { for (let i = 0; i < 5; i++) s.sendMedia(frame(1000)); s.sendMark('r1/e0/f10'); });
  t.equal(sent.length, 3);
  t.same(Object.keys(sent[0]), ['event', 'stream_sid', 'media']);
  t.equal(sent[0].stream_sid, 'MZ1');
  const chunk = Buffer.from(sent[0].media.payload, 'base64');
  t.equal(chunk.length, 3200, '200 ms at 8 kHz');
  t.ok(Math.abs(chunk.readInt16LE(0) - 1000) < 40, 'mu-law decoded to linear PCM, little-endian');
  t.same(sent.slice(1).map((m) => m.mark.name), ['r1/e0/f5', 'r1/e0/f10'], 'marks after their audio');
  s.batch(() => { for (let i = 0; i < 5; i++) s.sendMedia(frame(700)); s.sendMark('r1/e0/f15'); });
  t.equal(Buffer.from(sent[3].media.payload, 'base64').length, 1600, 'then 100 ms chunks while audio is still playing');
  t.same(sent[4].mark.name, 'r1/e0/f15');
  s.batch(() => { s.sendMedia(frame(500)); s.sendMark('r1/e0/f16'); });
  s.batch(() => { s.sendMedia(frame(500)); s.sendMark('r1/e0/f17'); });
  t.equal(sent.length, 5, 'held until 100 ms are there');
  await new Promise((r) => setTimeout(r, 120));
  t.equal(sent.length, 8);
  const tail = Buffer.from(sent[5].media.payload, 'base64');
  t.equal(tail.length, 1600, 'the tail is padded to 100 ms');
  t.equal(tail.readInt16LE(1598), 0, 'with silence');
  t.same(sent.slice(6).map((m) => m.mark.name), ['r1/e0/f16', 'r1/e0/f17'], 'marks after their audio, in order');
  s.sendMark('idle');
  t.same(sent[8], { event: 'mark', stream_sid: 'MZ1', mark: { name: 'idle' } }, 'a mark with nothing held goes at once');
  s.batch(() => { s.sendMedia(frame(1)); s.sendMark('dropped'); });
  s.sendClear();
  await new Promise((r) => setTimeout(r, 120));
  t.same(sent.slice(9), [{ event: 'clear', stream_sid: 'MZ1' }], 'held audio and its mark are dropped by clear');
  t.ok(sent.filter((m) => m.event === 'media').every((m) => Buffer.from(m.media.payload, 'base64').length % 320 === 0), 'every chunk whole 320-byte blocks');
});

t.test('a 16 kHz stream gets 16 kHz chunks, still whole 320-byte blocks', async (t) => {
  const { ws, sent } = socket();
  const s = new ExotelStream(ws, 'MZ1', 'CA1', {}, 16000);
  s.batch(() => { for (let i = 0; i < 10; i++) s.sendMedia(mulawEncode(new Int16Array(160).fill(300))); });
  const n = Buffer.from(sent[0].media.payload, 'base64').length;
  t.equal(n, 6400, '200 ms at 16 kHz');
  t.equal(n % 320, 0);
});

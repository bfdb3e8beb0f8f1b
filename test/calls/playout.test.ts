/**
 * Paced agent audio (src/media/playout.ts): the lead over the playhead, marks naming reply/epoch/frame, clear on
 * barge-in, and the batching of one tick's sends into one socket write (TwilioStream.batch corks the socket).
 */
import t from 'tap';
import type { WebSocket } from 'ws';
import { Playout, type PlayoutSink } from '../../src/media/playout.js';
import { TwilioStream } from '../../src/carriers/twilio/codec.js';

const frames = (n: number) => Array.from({ length: n }, (_, i) => new Uint8Array(160).fill(i));

function recordingSink(withBatch: boolean) {
  const log: string[] = [];
  let depth = 0;
  const sink: PlayoutSink = {
    sendMedia: (f) => log.push(`media:${f[0]}${depth ? ':batched' : ''}`),
    sendMark: (name) => log.push(`mark:${name}${depth ? ':batched' : ''}`),
    sendClear: () => log.push('clear'),
    ...(withBatch ? { batch: (send: () => void) => { depth++; log.push('batch'); try { send(); } finally { depth--; } } } : {}),
  };
  return { sink, log };
}

/** A playout over a recording sink, with a reply begun (`r` is its id). */
function started(leadFrames: number, withBatch = false) {
  const { sink, log } = recordingSink(withBatch);
  const p = new Playout(sink, {}, { timeScale: 1, leadFrames });
  return { p, log, r: p.beginReply() };
}

t.test('frames go out no more than the lead ahead of the playhead, a mark after each tick\'s frames', async (t) => {
  const { p, log, r } = started(3);
  p.enqueue(frames(6));
  p.pump(1000);
  t.same(log, ['media:0', 'media:1', 'media:2', `mark:r${r}/e0/f3`], 'three frames of lead, then their mark');
  log.length = 0;
  p.pump(1010); // half a frame later: the playhead has not moved
  t.same(log, [], 'nothing more until a frame has played');
  p.pump(1040); // two frames played
  t.same(log, ['media:3', 'media:4', `mark:r${r}/e0/f5`]);
  t.ok(p.speaking(1040));
});

t.test('with a batching sink, one tick\'s frames and mark are sent inside one batch; an idle tick opens none', async (t) => {
  const { p, log, r } = started(2, true);
  p.pump(1000);
  t.same(log, [], 'nothing queued: no batch');
  p.enqueue(frames(3));
  p.pump(1000);
  t.same(log, ['batch', 'media:0:batched', 'media:1:batched', `mark:r${r}/e0/f2:batched`]);
  log.length = 0;
  p.pump(1005);
  t.same(log, [], 'lead full: no batch');
  p.pump(1020);
  t.same(log, ['batch', 'media:2:batched', `mark:r${r}/e0/f3:batched`]);
});

t.test('clear drops the queue, bumps the epoch, and marks of the cleared audio no longer count', async (t) => {
  const { p, log, r } = started(5);
  p.enqueue(frames(10));
  p.pump(0);
  p.onMark(`r${r}/e0/f2`);
  t.equal(p.confirmedMs, 40, 'a mark of this reply and epoch proves what played');
  const cut = p.clear(60); // 3 frames played by the playhead, 5 sent
  t.same(cut, { playedMs: 60, sentMs: 100 });
  t.equal(log.at(-1), 'clear');
  p.onMark(`r${r}/e0/f5`);
  t.equal(p.confirmedMs, 40, 'a mark of the cleared epoch is ignored');
  t.notOk(p.speaking(60), 'nothing left to play');
});

t.test('TwilioStream.batch corks the upgrade socket around its sends, and sends nothing on a closed socket', async (t) => {
  const events: string[] = [];
  let corked = 0;
  const socket = { cork: () => { corked++; events.push('cork'); }, uncork: () => { corked--; events.push('uncork'); } };
  const ws = { OPEN: 1, readyState: 1, send: (text: string) => events.push(`${corked ? 'corked' : 'uncorked'}:${JSON.parse(text).event}`) };
  const start = { accountSid: 'AC1', streamSid: 'MZ1', callSid: 'CA1', tracks: ['inbound'], customParameters: {}, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } };
  const stream = new TwilioStream(ws as unknown as WebSocket, 'MZ1', start, socket);
  const p = new Playout(stream, {}, { timeScale: 1, leadFrames: 2 });
  p.beginReply();
  p.enqueue(frames(2));
  p.pump(0);
  t.same(events, ['cork', 'corked:media', 'corked:media', 'corked:mark', 'uncork']);
  t.throws(() => stream.batch(() => { throw new Error('boom'); }), /boom/);
  t.equal(corked, 0, 'uncorked even when a send throws');
  events.length = 0;
  ws.readyState = 3;
  stream.batch(() => stream.sendMedia(new Uint8Array(160)));
  t.same(events, ['cork', 'uncork'], 'a closed socket gets nothing');
});

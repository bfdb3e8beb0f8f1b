import t from 'tap';
import { AudioBatcher } from '../../src/adapters/grpc/audio_batcher.js';

const frame = (v: number) => new Int16Array(160).fill(v);

t.test('contiguous frames become one chunk of up to batchMs, stamped with the first frame time', async (t) => {
  const sent: Array<[number[], number]> = [];
  const b = new AudioBatcher(8000, 100, (pcm, atMs) => sent.push([[pcm.length, pcm[0], pcm[pcm.length - 1]], atMs]));
  for (let i = 0; i < 12; i++) b.push(frame(i), 1000 + i * 20);
  t.same(sent, [[[800, 0, 4], 1000], [[800, 5, 9], 1100]], 'two full 100 ms chunks');
  b.flush();
  t.same(sent[2], [[320, 10, 11], 1200], 'flush sends the rest');
  b.flush();
  t.equal(sent.length, 3, 'nothing to flush twice');
  b.dispose();
});

t.test('a gap in media time sends what is held first, so times stay exact', async (t) => {
  const sent: number[] = [];
  const b = new AudioBatcher(8000, 100, (_pcm, atMs) => sent.push(atMs));
  b.push(frame(1), 0);
  b.push(frame(1), 20);
  b.push(frame(1), 500);
  b.flush();
  t.same(sent, [0, 500]);
  b.dispose();
});

t.test('the timer sends a partial batch; the caller may reuse its buffer; batchMs 0 sends at once', async (t) => {
  const sent: number[][] = [];
  const b = new AudioBatcher(8000, 30, (pcm) => sent.push([...pcm.subarray(0, 2)]));
  const reused = frame(7);
  b.push(reused, 0);
  reused.fill(9);
  await new Promise((r) => setTimeout(r, 60));
  t.same(sent, [[7, 7]]);
  const direct: number[] = [];
  const d = new AudioBatcher(8000, 0, (_p, at) => direct.push(at));
  d.push(frame(1), 0);
  d.push(frame(1), 20);
  t.same(direct, [0, 20]);
  b.dispose();
  d.dispose();
});

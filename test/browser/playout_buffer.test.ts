/**
 * The site's call player logic (web/src/site/playout_buffer.ts), without a browser: it waits for a little audio
 * before playing (jitter), plays the 8 kHz call at the context's rate, echoes each mark once the audio before it has
 * played, and on clear drops what is held and hands back every pending mark.
 */
import t from 'tap';
import { PlayoutBuffer } from '../../web/src/site/playout_buffer.js';

const RATE = 16_000;
const quantum = () => new Float32Array(128);

t.test('marks are echoed once their audio has played', async (t) => {
  const b = new PlayoutBuffer();
  b.push(new Float32Array(160).fill(0.5)); // 20 ms
  b.mark('a');
  b.push(new Float32Array(800).fill(-0.25)); // 100 ms
  b.mark('b');
  const marks: string[] = [];
  let loud = 0;
  let quanta = 0;
  while (marks.length < 2 && quanta < 100) {
    const out = quantum();
    const now = b.render(out, RATE);
    // a quantum is 8 ms: 'a' comes back at the end of the quantum its audio ended in
    if (now.includes('a')) t.ok(b.playedMs >= 20 && b.playedMs <= 28, `'a' after its 20 ms (${b.playedMs} ms played)`);
    marks.push(...now);
    loud += out.filter((v) => v !== 0).length;
    quanta++;
  }
  t.same(marks, ['a', 'b']);
  t.ok(loud >= 1900 && loud <= 1920, `120 ms at 8 kHz played as ~1,920 samples at 16 kHz (${loud})`);
  const out = quantum();
  t.same(b.render(out, RATE), []);
  t.ok(out.every((v) => v === 0), 'then silence');
});

t.test('it waits for a little audio before it plays, or for that long', async (t) => {
  const b = new PlayoutBuffer();
  b.push(new Float32Array(160).fill(0.5)); // 20 ms: less than the jitter buffer holds
  const first = quantum();
  b.render(first, RATE);
  t.ok(first.every((v) => v === 0), 'held back at first');
  let rendered = 1;
  while (b.playedMs === 0 && rendered < 50) { b.render(quantum(), RATE); rendered++; }
  t.ok(b.playedMs > 0, `a short last sentence still plays, after ${rendered} quanta`);
});

t.test('clear drops what is held and returns the pending marks', async (t) => {
  const b = new PlayoutBuffer();
  b.push(new Float32Array(8000).fill(0.5));
  b.mark('x');
  b.push(new Float32Array(800).fill(0.5));
  b.mark('y');
  for (let i = 0; i < 20; i++) b.render(quantum(), RATE);
  t.same(b.clear(), ['x', 'y']);
  const out = quantum();
  t.same(b.render(out, RATE), []);
  t.ok(out.every((v) => v === 0), 'nothing more plays');
  b.push(new Float32Array(1600).fill(0.1));
  let played = false;
  for (let i = 0; i < 30 && !played; i++) { const o = quantum(); b.render(o, RATE); played = o.some((v) => v !== 0); }
  t.ok(played, 'the next reply plays');
});

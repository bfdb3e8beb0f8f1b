/**
 * Group commit (src/db/batcher.ts): items arriving while a batch is in flight share the next batch, a lone item
 * goes at once, one key never appears twice in a batch (order kept), and one bad item fails only itself.
 */
import t from 'tap';
import { Batcher } from '../../src/db/batcher.js';

const tick = () => new Promise((r) => setImmediate(r));

/** A Batcher whose first batch waits until release(); every batch is recorded, and `answer` maps its items. */
function gated<I, O>(opts: ConstructorParameters<typeof Batcher<I, O>>[1], answer: (items: I[]) => O[]) {
  const batches: I[][] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  const b = new Batcher<I, O>(async (items) => {
    batches.push(items);
    if (batches.length === 1) await gate;
    return answer(items);
  }, opts);
  return { b, batches, release };
}

t.test('items pushed during a flush share the next batch; a lone item goes at once', async (t) => {
  const { b, batches, release } = gated<number, number>({ maxBatch: 3, maxInFlight: 1 }, (items) => items.map((i) => i * 10));
  const first = b.push(1);
  await tick();
  t.same(batches, [[1]], 'the first item did not wait for company');
  const rest = [2, 3, 4, 5].map((i) => b.push(i));
  await tick();
  t.same(batches, [[1]], 'nothing else starts while a batch is in flight (maxInFlight 1)');
  release();
  t.same(await Promise.all([first, ...rest]), [10, 20, 30, 40, 50]);
  t.same(batches, [[1], [2, 3, 4], [5]], 'then batches of at most maxBatch, in arrival order');
  t.notOk(b.busy);
});

t.test('a key appears once per batch; its later items follow in order', async (t) => {
  const batches: string[][] = [];
  const b = new Batcher<{ k: string; v: number }, string>(async (items) => {
    batches.push(items.map((i) => `${i.k}${i.v}`));
    return items.map((i) => `${i.k}${i.v}`);
  }, { maxBatch: 10, maxInFlight: 1, key: (i) => i.k });
  const hold = b.push({ k: 'x', v: 0 });
  const ps = [{ k: 'a', v: 1 }, { k: 'a', v: 2 }, { k: 'b', v: 1 }, { k: 'a', v: 3 }, { k: 'b', v: 2 }].map((i) => b.push(i));
  await Promise.all([hold, ...ps]);
  t.same(batches, [['x0'], ['a1', 'b1'], ['a2', 'b2'], ['a3']]);
});

t.test('an Error answer fails its item only; a failed batch is retried item by item', async (t) => {
  const seen: number[][] = [];
  const b = new Batcher<number, number>(async (items) => {
    seen.push(items);
    if (items.length > 1 && items.includes(13)) throw new Error('statement failed');
    if (items.includes(13)) throw new Error('13 is bad');
    return items.map((i) => (i === 7 ? new Error('7 refused') : i));
  }, { maxBatch: 10, maxInFlight: 1 });
  const hold = b.push(0);
  const rs = await Promise.allSettled([b.push(7), b.push(8), b.push(13), b.push(9)]);
  await hold;
  t.same(rs.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), ['7 refused', 8, '13 is bad', 9]);
  t.same(seen, [[0], [7, 8, 13, 9], [7], [8], [13], [9]], 'the whole batch failed, then each item alone');
});

t.test('maxInFlight 2 runs two batches at once', async (t) => {
  let running = 0;
  let peak = 0;
  const b = new Batcher<number, number>(async (items) => {
    running += 1; peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, 5));
    running -= 1;
    return items;
  }, { maxBatch: 1, maxInFlight: 2 });
  await Promise.all([1, 2, 3, 4].map((i) => b.push(i)));
  t.equal(peak, 2);
});

t.test('a key in flight holds its later items back even with a free slot; other keys go past', async (t) => {
  const { b, batches, release } = gated<string, string>({ maxBatch: 10, maxInFlight: 2, key: (s) => s.split(':')[0] }, (items) => items);
  const first = b.push('a:1');
  await tick();
  const later = [b.push('a:2'), b.push('b:1')];
  await tick();
  t.same(batches, [['a:1'], ['b:1']], "a:2 waits for a:1's batch; b:1 takes the free slot");
  release();
  t.same(await Promise.all([first, ...later]), ['a:1', 'a:2', 'b:1']);
  t.same(batches, [['a:1'], ['b:1'], ['a:2']]);
  t.notOk(b.busy);
});

t.test('lingerMs: under load a small batch waits for company; a lone item and a full batch do not', async (t) => {
  const batches: number[][] = [];
  const b = new Batcher<number, number>(async (items) => { batches.push(items); return items; },
    { maxBatch: 4, maxInFlight: 1, lingerMs: 20 });
  // Each step lets the batcher settle (its slot frees a tick after the items resolve).
  const settled = async (ps: Promise<number>[]) => { await Promise.all(ps); await tick(); };
  await settled([b.push(1)]);
  await settled([b.push(2), b.push(3)]); // 2 starts alone, 3 waits for it: a batch of one, then of one
  t.same(batches, [[1], [2], [3]], 'no batch carried more than one item yet, so none waited');
  // Now load: 4 goes alone, 5 and 6 queue behind it and go together, which marks the path as under load.
  await settled([b.push(4), b.push(5), b.push(6)]);
  t.same(batches.slice(3), [[4], [5, 6]]);
  const started = performance.now();
  const late = b.push(7);
  setTimeout(() => { void b.push(8); }, 5); // arrives during the wait and joins 7
  await settled([late]);
  t.ok(performance.now() - started >= 15, 'the batch after a loaded one waited (lingerMs 20)');
  t.same(batches.slice(5), [[7, 8]], 'and the item that arrived meanwhile went with it');
  t.notOk(b.busy);
});

t.test('lingerMs: a full batch does not wait out the timer', async (t) => {
  // a linger far longer than the test: if the full batch waited for it, the 5 s timer below wins the race
  const batches: number[][] = [];
  const b = new Batcher<number, number>(async (items) => { batches.push(items); return items; },
    { maxBatch: 4, maxInFlight: 1, lingerMs: 60_000 });
  const settled = async (ps: Promise<number>[]) => { await Promise.all(ps); await tick(); };
  // 1 goes alone, 2 and 3 queue behind it and go together: the path is under load, so the next batch lingers
  await settled([b.push(1), b.push(2), b.push(3)]);
  t.same(batches, [[1], [2, 3]]);
  const waiting = [b.push(11), b.push(12), b.push(13)];
  await tick();
  t.same(batches.length, 2, 'under load, fewer than maxBatch items wait (the linger started)');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'lingered'>((r) => { timer = setTimeout(r, 5_000, 'lingered'); });
  const won = await Promise.race([settled([...waiting, b.push(14)]).then(() => 'at once' as const), timedOut]);
  clearTimeout(timer);
  t.equal(won, 'at once', 'maxBatch items waiting start at once, without the linger');
  t.same(batches.slice(-1), [[11, 12, 13, 14]]);
  t.notOk(b.busy);
});

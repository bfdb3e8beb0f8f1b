/** Ids and random hex come from one pooled random buffer: the forms hold and nothing repeats across refills. */
import t from 'tap';
import { newId, randomHex } from '../src/ids.js';

t.test('newId and randomHex: forms, and no repeats across many pool refills', async (t) => {
  const seen = new Set<string>();
  const bad: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const id = newId('call');
    const hex = randomHex(16);
    if (!/^call_[0-9a-f]{24}$/.test(id)) bad.push(id);
    if (!/^[0-9a-f]{32}$/.test(hex)) bad.push(hex);
    seen.add(id.slice(5)).add(hex);
  }
  t.same(bad, [], 'every id and hex string has its form');
  t.equal(seen.size, 10_000, 'all distinct');
});

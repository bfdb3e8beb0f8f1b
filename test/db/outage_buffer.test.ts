/**
 * The outage buffer (src/db/outage.ts) against a database that can be switched off: writes that fail because it
 * is unreachable are kept and written, in order per key, once a probe finds it back; the bound refuses what
 * does not fit; other errors pass straight through; shutdown gives up what is waiting.
 */
import t from 'tap';
import { DatabaseUnavailableError, type QueryResult, type Queryable } from '../../src/db/db.js';
import { OutageBuffer } from '../../src/db/outage.js';

class SwitchableDb implements Queryable {
  up = true;
  async query<T>(): Promise<QueryResult<T>> {
    if (!this.up) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    return { rows: [], rowCount: 0 };
  }
}

/** A write of `key`/`n` that goes through the database, recording the order it landed in. */
const writer = (db: SwitchableDb, landed: string[]) => (key: string, n: number) => async () => {
  await db.query();
  landed.push(`${key}:${n}`);
  return n;
};

t.test('kept while down, written in order per key when the database returns', async (t) => {
  const db = new SwitchableDb();
  const buf = new OutageBuffer(db, { maxWrites: 100 });
  const landed: string[] = [];
  const w = writer(db, landed);
  t.equal(await buf.keep('a', w('a', 0)), 0, 'a plain pass-through while up');
  db.up = false;
  const kept = [1, 2, 3].flatMap((n) => [buf.keep('a', w('a', n)), buf.keep('b', w('b', n))]);
  await new Promise((r) => setTimeout(r, 50));
  t.equal(buf.down, true);
  t.equal(buf.held, 6);
  t.same(landed, ['a:0'], 'nothing written while down');
  db.up = true;
  t.same(await Promise.all(kept), [1, 1, 2, 2, 3, 3], 'every kept write settles with its own result');
  t.same(landed.filter((l) => l.startsWith('a')), ['a:0', 'a:1', 'a:2', 'a:3'], 'in order for a');
  t.same(landed.filter((l) => l.startsWith('b')), ['b:1', 'b:2', 'b:3'], 'in order for b');
  t.equal(buf.down, false);
  t.equal(buf.held, 0);
});

t.test('bounded: past maxWrites a new write is refused at once while the database is down', async (t) => {
  const db = new SwitchableDb();
  const buf = new OutageBuffer(db, { maxWrites: 2 });
  const landed: string[] = [];
  const w = writer(db, landed);
  db.up = false;
  const a = buf.keep('k', w('k', 1));
  const b = buf.keep('k', w('k', 2));
  await new Promise((r) => setTimeout(r, 20));
  await t.rejects(buf.keep('k', w('k', 3)), DatabaseUnavailableError, 'the third is dropped');
  t.equal(buf.dropped, 1);
  db.up = true;
  t.same(await Promise.all([a, b]), [1, 2]);
  t.same(landed, ['k:1', 'k:2']);
});

t.test('errors other than an outage are not kept', async (t) => {
  const buf = new OutageBuffer(new SwitchableDb());
  await t.rejects(buf.keep('k', async () => { throw Object.assign(new Error('duplicate key'), { code: '23505' }); }), /duplicate key/);
  t.equal(buf.held, 0);
});

t.test('shutdown during an outage gives up the waiting writes', async (t) => {
  const db = new SwitchableDb();
  const buf = new OutageBuffer(db);
  db.up = false;
  const w = buf.keep('k', writer(db, [])('k', 1));
  await new Promise((r) => setTimeout(r, 20));
  buf.close();
  await t.rejects(w, DatabaseUnavailableError);
  await t.rejects(buf.keep('k', writer(db, [])('k', 2)), /ECONNREFUSED/, 'after close an outage fails at once');
});

/**
 * Db.snapshot: the reads of a view built from several statements see one state. On PostgreSQL (READ COMMITTED by
 * default) a commit between two statements used to show half of itself: a call's status beside transitions past it,
 * a campaign's state beside counts of after its cancel. On PGlite a write waits until the snapshot ends.
 */
import t from 'tap';
import { API_KEY, api, startTestServer, waitForCallEnd } from '../helpers/server.js';

const srv = await startTestServer({ env: { SIM_TIME_SCALE: '10' } });
t.teardown(() => srv.close());
const db = srv.services.db;
await db.exec('CREATE TABLE snap_probe (k int PRIMARY KEY, v int NOT NULL); INSERT INTO snap_probe VALUES (1, 0), (2, 0)');

t.test('a commit between two reads of a snapshot is seen by neither', async (t) => {
  let write: Promise<unknown> | undefined;
  const seen = await db.snapshot(async (q) => {
    const first = (await q.query<{ v: number }>('SELECT v FROM snap_probe WHERE k = 1')).rows[0].v;
    // both rows move together, committed between our two reads (PGlite: queued behind the snapshot)
    write = db.transaction(async (tx) => { await tx.query('UPDATE snap_probe SET v = v + 1'); });
    if (db.kind === 'postgres') await write;
    const second = (await q.query<{ v: number }>('SELECT v FROM snap_probe WHERE k = 2')).rows[0].v;
    return { first, second };
  });
  await write;
  t.same(seen, { first: 0, second: 0 }, 'the second read did not see the commit');
  const after = (await db.query<{ v: number }>('SELECT v FROM snap_probe ORDER BY k')).rows.map((r) => r.v);
  t.same(after, [1, 1], 'and the write was not lost');
});

t.test('a snapshot is read-only and an error inside it ends it', async (t) => {
  await t.rejects(db.snapshot((q) => q.query('UPDATE snap_probe SET v = 9')), /read-only/);
  t.same((await db.query<{ v: number }>('SELECT v FROM snap_probe ORDER BY k')).rows.map((r) => r.v), [1, 1], 'nothing written');
  t.equal((await db.query<{ n: number }>('SELECT 1 AS n')).rows[0].n, 1, 'the connection is usable again');
});

t.test('GET /calls/:id: the status always agrees with the last transition listed beside it', async (t) => {
  const key = { 'x-api-key': API_KEY };
  const d = await api(srv.baseUrl, 'POST', '/calls/dispatch', { headers: key, body: { to: '+15005550006', agent_id: 'default' } });
  t.equal(d.status, 201);
  const disagreements: string[] = [];
  let polls = 0;
  const ended = waitForCallEnd(srv.baseUrl, d.body.id, key, { pollMs: 200 });
  let done = false;
  ended.finally(() => { done = true; }).catch(() => {});
  while (!done) {
    const r = await api(srv.baseUrl, 'GET', `/calls/${d.body.id}`, { headers: key });
    polls++;
    const last = r.body.transitions.at(-1)?.to;
    if (last !== r.body.status) disagreements.push(`${r.body.status} beside ${last}`);
    await new Promise((res) => setTimeout(res, 2));
  }
  await ended;
  t.ok(polls > 10, `polled through the call (${polls} reads)`);
  t.same(disagreements, [], 'no read showed a status beside transitions past it');
});

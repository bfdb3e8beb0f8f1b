/**
 * Call transitions under concurrency (src/calls/lifecycle.ts): many calls moving at once share statements
 * (group commit) yet each moves exactly once, with its own transition row and timestamps; racers for one call
 * leave one winner; another tenant's id never moves; illegal moves are refused before SQL.
 */
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { DEV_TENANT_ID } from '../../src/services.js';
import { transition, IllegalTransition } from '../../src/calls/lifecycle.js';
import { insertCall, otherTenant } from '../stream/helpers.js';
import { CallEventStore } from '../../src/stream/event_store.js';

const srv = await startTestServer();
t.teardown(() => srv.close());
const db = srv.services.db;

t.test('many calls moved at once: each once, with its transition row; racers have one winner', async (t) => {
  const ids = await Promise.all(Array.from({ length: 40 }, () => insertCall(srv.services, DEV_TENANT_ID, { status: 'dialing' })));
  // every call gets two racing moves from dialing: in_progress and busy; exactly one of them wins
  const rs = await Promise.all(ids.flatMap((id) => [
    transition(db, DEV_TENANT_ID, id, 'dialing', 'in_progress', 'answered', { carrierCallId: `CA${id.slice(5)}` }),
    transition(db, DEV_TENANT_ID, id, 'dialing', 'busy', 'busy'),
  ]));
  for (let i = 0; i < ids.length; i++) {
    const [a, b] = [rs[2 * i], rs[2 * i + 1]];
    t.ok(!!a !== !!b, `call ${i}: one winner`);
  }
  const rows = (await db.query<{ id: string; status: string; carrier_call_id: string | null; answered_at: unknown; ended_at: unknown; ended_reason: string | null }>(
    'SELECT id, status, carrier_call_id, answered_at, ended_at, ended_reason FROM calls WHERE id = ANY($1)', [ids])).rows;
  for (const r of rows) {
    const won = rs[2 * ids.indexOf(r.id)] ? 'in_progress' : 'busy';
    t.equal(r.status, won);
    if (won === 'in_progress') { t.ok(r.answered_at && !r.ended_at && r.carrier_call_id === `CA${r.id.slice(5)}`); } else { t.ok(r.ended_at && r.ended_reason === 'busy' && !r.answered_at); }
  }
  const tr = (await db.query<{ call_id: string; n: number }>(
    'SELECT call_id, count(*)::int AS n FROM call_lifecycle WHERE call_id = ANY($1) GROUP BY call_id', [ids])).rows;
  t.same(tr.map((x) => x.n), ids.map(() => 1), 'one transition per call');
  const done = await Promise.all(rows.filter((r) => r.status === 'in_progress').map((r) => transition(db, DEV_TENANT_ID, r.id, 'in_progress', 'completed', 'hangup')));
  t.ok(done.every((d) => d && d.from === 'in_progress' && d.to === 'completed'), 'later moves of the same calls go through');
});

t.test('another tenant cannot move a call; illegal moves never reach SQL', async (t) => {
  const other = await otherTenant(srv.services);
  const id = await insertCall(srv.services, other.tenantId, { status: 'dialing' });
  const mineToo = await insertCall(srv.services, DEV_TENANT_ID, { status: 'dialing' });
  const [foreign, own] = await Promise.all([
    transition(db, DEV_TENANT_ID, id, 'dialing', 'failed', 'x'),
    transition(db, DEV_TENANT_ID, mineToo, 'dialing', 'failed', 'x'),
  ]);
  t.equal(foreign, undefined, 'not moved');
  t.equal(own?.to, 'failed', 'the batch neighbour moved');
  t.equal((await db.query<{ status: string }>('SELECT status FROM calls WHERE id = $1', [id])).rows[0].status, 'dialing');
  await t.rejects(transition(db, DEV_TENANT_ID, mineToo, 'completed', 'in_progress'), IllegalTransition);
});

t.test('a move stores its status item under the call\'s next seq; a lost race stores none; dispatch stores queued as seq 1', async (t) => {
  const store = new CallEventStore(db);
  const items = async (id: string) => (await store.after(id, 0)).map((m) => ({ seq: m.seq, type: m.type, status: (m as { status?: string }).status, ended_reason: (m as { ended_reason?: string | null }).ended_reason }));
  // a call with no counter row yet (stored before migration 013): the move starts its seq at 1
  const id = await insertCall(srv.services, DEV_TENANT_ID, { status: 'dialing' });
  const [won, lost] = await Promise.all([
    transition(db, DEV_TENANT_ID, id, 'dialing', 'in_progress', 'answered'),
    transition(db, DEV_TENANT_ID, id, 'dialing', 'busy', 'busy'),
  ]);
  t.ok(won && !lost, 'one winner');
  t.same(won!.item, { type: 'status', status: 'in_progress', ended_reason: null, call_id: id, seq: 1, at: won!.at }, 'the stored item is returned to announce');
  await store.append(DEV_TENANT_ID, id, { type: 'transcript', speaker: 'caller', text: 'hello', latencyMs: 0, partial: false });
  // the multi-origin statement (hang-up of a call not driven here) stores its item the same way
  const ended = await transition(db, DEV_TENANT_ID, id, ['dialing', 'in_progress'], 'completed', 'hangup_api');
  t.equal(ended?.item.seq, 3);
  t.same(await items(id), [
    { seq: 1, type: 'status', status: 'in_progress', ended_reason: null },
    { seq: 2, type: 'transcript', status: undefined, ended_reason: undefined },
    { seq: 3, type: 'status', status: 'completed', ended_reason: 'hangup_api' },
  ], 'one item per winning move, in seq order with the other items');

  const call = await srv.services.calls.dispatch(DEV_TENANT_ID, { to: '+15005550002', agent_id: 'default' });
  const first = (await store.after(call.id, 0, 1))[0];
  t.same({ seq: first.seq, type: first.type, status: (first as { status?: string }).status }, { seq: 1, type: 'status', status: 'queued' }, 'dispatch stored queued as seq 1');
});

/**
 * The call lifecycle: one table of legal transitions, and the only function that changes a call's status.
 * A transition is a conditional UPDATE (… WHERE status = ANY(expected)) plus its status item, in one statement:
 * an illegal transition is refused before SQL, a racing one finds the status already moved and changes nothing
 * (the caller learns it lost with `undefined`). The status item (the call's next seq, see
 * src/stream/event_store.ts) is both the live item, which the caller only announces on the bus, and the stored
 * transition (from, to, reason, at; read through the view call_lifecycle).
 */
import { Batcher, maxBatchFor } from '../db/batcher.js';
import type { Db, Queryable } from '../db/db.js';
import type { CallEventMessage } from '../stream/types.js';
import type { CallStatus } from './types.js';

export const TRANSITIONS: Readonly<Record<CallStatus, readonly CallStatus[]>> = {
  queued: ['dialing', 'scheduled', 'blocked', 'canceled', 'failed'],
  scheduled: ['queued', 'blocked', 'canceled'],
  dialing: ['ringing', 'in_progress', 'no_answer', 'busy', 'failed', 'canceled'],
  ringing: ['in_progress', 'no_answer', 'busy', 'failed', 'canceled'],
  in_progress: ['completed', 'failed'],
  blocked: [],
  completed: [],
  no_answer: [],
  busy: [],
  failed: [],
  canceled: [],
};

export const canTransition = (from: CallStatus, to: CallStatus): boolean => TRANSITIONS[from].includes(to);

export class IllegalTransition extends Error {
  override name = 'IllegalTransition';
  constructor(readonly from: readonly CallStatus[], readonly to: CallStatus) {
    super(`illegal call transition ${from.join('|')} -> ${to}`);
  }
}

export interface TransitionResult {
  from: CallStatus; to: CallStatus; reason: string | null; at: string;
  /** the stored status item {status: to, ended_reason}, to announce (CallEventSink.announce) */
  item: CallEventMessage;
}

/** Extra columns written with the status (timestamps are set here: answered_at on in_progress, ended_at on an end). */
export interface TransitionExtra {
  endedReason?: string;
  carrierCallId?: string;
}

/**
 * Moves the call from one of `from` to `to`. Returns undefined when the call is not in any of `from` any more
 * (another transition won). Throws IllegalTransition when no status in `from` may go to `to`.
 */
export async function transition(
  db: Db, tenantId: string, callId: string, from: CallStatus | readonly CallStatus[], to: CallStatus,
  reason: string | null = null, extra: TransitionExtra = {},
  /** runs in the same transaction after the status moved (e.g. the webhook outbox row) */
  also?: (tx: Queryable) => Promise<void>,
): Promise<TransitionResult | undefined> {
  const legalFrom = (Array.isArray(from) ? from : [from]) as CallStatus[];
  const allowed = legalFrom.filter((f) => canTransition(f, to));
  if (!allowed.length) throw new IllegalTransition(legalFrom, to);
  const ending = TRANSITIONS[to].length === 0;
  const endedReason = extra.endedReason ?? (ending ? reason : null);
  const done = (row: MoveRow | null | undefined): TransitionResult | undefined => {
    if (!row) return undefined;
    const at = new Date(row.at).toISOString();
    return { from: row.from_status, to, reason, at,
      item: { type: 'status', status: to, ended_reason: endedReason, call_id: callId, seq: Number(row.seq), at } };
  };
  // Without `also`, one legal origin (the runner's case) goes with the single-origin moves of other calls in one
  // statement (group commit, see db/batcher.ts): status and its item atomic, no locking read needed.
  if (!also && allowed.length === 1) {
    return done(await movesOf(db).push({ call_id: callId, tenant_id: tenantId, from_status: allowed[0], to_status: to,
      ended_reason: endedReason, carrier_call_id: extra.carrierCallId ?? null, ending, reason }));
  }
  const args = [callId, tenantId, allowed, to, endedReason, extra.carrierCallId ?? null, ending, reason];
  if (!also) return done((await db.query<MoveRow>(TRANSITION_SQL, args)).rows[0]);
  return db.transaction(async (tx) => {
    const row = (await tx.query<MoveRow>(TRANSITION_SQL, args)).rows[0];
    if (!row) return undefined;
    await also(tx);
    return done(row);
  });
}

/** What a transition writes besides the status, given the SQL expressions of its values (parameters or columns). */
const setColumns = (v: { to: string; endedReason: string; carrierCallId: string; ending: string }) => `SET status = ${v.to}, updated_at = now(),
    ended_reason = COALESCE(${v.endedReason}, c.ended_reason),
    carrier_call_id = COALESCE(${v.carrierCallId}, c.carrier_call_id),
    answered_at = CASE WHEN ${v.to} = 'in_progress' THEN now() ELSE c.answered_at END,
    ended_at = CASE WHEN ${v.ending} THEN now() ELSE c.ended_at END,
    duration_seconds = CASE WHEN ${v.ending} AND c.answered_at IS NOT NULL
      THEN GREATEST(0, round(extract(epoch FROM (now() - c.answered_at))))::int ELSE c.duration_seconds END`;

/**
 * What a move writes besides the call row, given a CTE `moved` (id, tenant_id, from_status, to_status, reason,
 * ended_reason, at): its live status item under the call's next seq (the counter row's lock orders it with the
 * call's other items; a call stored before status items existed may have no counter yet). The item is also the
 * transition: it carries from_status and reason in columns the stream does not show.
 */
const RECORD_MOVES = `
counted AS (
  INSERT INTO call_event_counters (call_id, last_seq) SELECT id, 1 FROM moved
  ON CONFLICT (call_id) DO UPDATE SET last_seq = call_event_counters.last_seq + 1
  RETURNING call_id, last_seq),
item AS (
  INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at, is_transition, from_status, reason)
  SELECT m.id, n.last_seq, m.tenant_id, 'status', jsonb_build_object('status', m.to_status, 'ended_reason', m.ended_reason), m.at,
    true, m.from_status, m.reason
  FROM moved m JOIN counted n ON n.call_id = m.id)
SELECT m.id, m.from_status, m.at, n.last_seq AS seq FROM moved m JOIN counted n ON n.call_id = m.id`;

/**
 * The conditional status UPDATE and its status item in one statement. The row lock re-checks the status after
 * waiting for a racing transition, so only one of two racers moves the call. It is FOR NO KEY UPDATE (what the
 * UPDATE takes anyway), not FOR UPDATE: a concurrent item append holds the counter row and key-share-locks the
 * call for its foreign key, which FOR UPDATE would block: a deadlock.
 */
const TRANSITION_SQL = `
WITH old AS (SELECT status FROM calls WHERE id = $1 AND tenant_id = $2 AND status = ANY($3::text[]) FOR NO KEY UPDATE),
moved AS (
  UPDATE calls c ${setColumns({ to: '$4', endedReason: '$5', carrierCallId: '$6', ending: '$7' })}
  FROM old WHERE c.id = $1 AND c.tenant_id = $2
  RETURNING c.id, c.tenant_id, old.status AS from_status, $4::text AS to_status, $8::text AS reason, $5::text AS ended_reason, c.updated_at AS at),
${RECORD_MOVES}`;

interface BatchedMove {
  call_id: string; tenant_id: string; from_status: CallStatus; to_status: CallStatus; ended_reason: string | null;
  carrier_call_id: string | null; ending: boolean; reason: string | null;
}
type MoveRow = { from_status: CallStatus; at: Date | string; seq: number | string };

/**
 * Single-origin moves of many calls (one item per call): each row moves only if its call is still in from_status
 * (the UPDATE's own WHERE re-checks it after waiting for a racing transition, READ COMMITTED re-evaluation).
 * $2 repeats the ids so the plan is a primary-key lookup whatever the statistics say (see event_store.ts).
 */
const TRANSITION_MANY_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(call_id text, tenant_id text, from_status text, to_status text,
    ended_reason text, carrier_call_id text, ending boolean, reason text)
), moved AS (
  UPDATE calls c ${setColumns({ to: 'i.to_status', endedReason: 'i.ended_reason', carrierCallId: 'i.carrier_call_id', ending: 'i.ending' })}
  FROM input i WHERE c.id = ANY($2::text[]) AND c.id = i.call_id AND c.tenant_id = i.tenant_id AND c.status = i.from_status
  RETURNING c.id, c.tenant_id, i.from_status, i.to_status, i.reason, i.ended_reason, c.updated_at AS at),
${RECORD_MOVES}`;

const batchers = new WeakMap<Db, Batcher<BatchedMove, MoveRow | null>>();

function movesOf(db: Db): Batcher<BatchedMove, MoveRow | null> {
  let b = batchers.get(db);
  if (!b) {
    b = new Batcher<BatchedMove, MoveRow | null>(async (items) => {
      const r = await db.query<MoveRow & { id: string }>(TRANSITION_MANY_SQL, [JSON.stringify(items), items.map((i) => i.call_id)]);
      const byId = new Map(r.rows.map((row) => [row.id, row]));
      return items.map((i) => byId.get(i.call_id) ?? null);
    // One batch in flight: moves wait while one runs and go together in the next, so each statement and commit is
    // shared by more calls (two in flight halved the batches and cost more per move: bench/README.md, "Write
    // batching"). A status move is not on any latency path of a live call's audio, so under load a batch also
    // lingers 2 ms for more moves: CPU saved for the requests at the cost of a status showing 2 ms later.
    }, { maxBatch: maxBatchFor(db.kind, 200), maxInFlight: 1, key: (i) => i.call_id, lingerMs: 2 });
    batchers.set(db, b);
  }
  return b;
}

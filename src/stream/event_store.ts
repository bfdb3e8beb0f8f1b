/**
 * call_events storage: append with the next per-call seq (atomic under concurrent publishers and several
 * instances, via the call_event_counters row lock) and tenant-scoped reads by seq for late joiners and resume.
 * The other writers take seqs the same way inside their own statements: a status move stores its status item
 * (src/calls/lifecycle.ts), and a dispatch stores the call's `queued` item as seq 1 (dispatch_calls).
 */
import type { Queryable } from '../db/db.js';
import { ApiError } from '../errors.js';
import type { CallEventInput, CallEventMessage } from './types.js';

export const EVENT_TYPES = ['transcript', 'entity', 'escalation', 'status', 'transfer'] as const;

interface EventRow { call_id: string; seq: number; type: string; payload: Record<string, unknown>; at: Date | string }

const iso = (v: Date | string) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString());

export function toMessage(r: EventRow): CallEventMessage {
  return { type: r.type, ...r.payload, call_id: r.call_id, seq: Number(r.seq), at: iso(r.at) } as CallEventMessage;
}

// One statement for items of distinct calls (the sink's group commit, see db/batcher.ts): per item, the counter
// upsert (only for a call of its tenant) and the event insert commit together.
// `c.id = ANY($2)` (the same ids again) makes the primary-key lookup the plan whatever the table statistics
// say: joined to a function scan alone, a stale estimate picks a sequential scan of calls.
const APPEND_MANY_SQL = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(call_id text, tenant_id text, type text, payload jsonb, at timestamptz)
), next AS (
  INSERT INTO call_event_counters (call_id, last_seq)
  SELECT c.id, 1 FROM input JOIN calls c ON c.id = input.call_id AND c.tenant_id = input.tenant_id
  WHERE c.id = ANY($2::text[])
  ON CONFLICT (call_id) DO UPDATE SET last_seq = call_event_counters.last_seq + 1
  RETURNING call_id, last_seq
)
INSERT INTO call_events (call_id, seq, tenant_id, type, payload, at)
SELECT input.call_id, next.last_seq, input.tenant_id, input.type, input.payload, input.at FROM input JOIN next USING (call_id)
RETURNING call_id, seq, type, payload, at`;

export interface AppendItem { tenantId: string; callId: string; event: CallEventInput }

export class CallEventStore {
  constructor(private db: Queryable) {}

  /**
   * Stores items of distinct calls in one statement; answers each in order (an ApiError for an item whose call
   * is not its tenant's or whose type is unknown; the others are stored all the same).
   */
  async appendMany(items: AppendItem[]): Promise<Array<CallEventMessage | ApiError>> {
    if (new Set(items.map((i) => i.callId)).size !== items.length) throw new Error('appendMany: one item per call');
    const valid = items.filter((i) => EVENT_TYPES.includes(i.event.type));
    const at = new Date().toISOString();
    const rows = valid.length ? (await this.db.query<EventRow>(APPEND_MANY_SQL, [JSON.stringify(valid.map(({ tenantId, callId, event }) => {
      const { type, ...payload } = event;
      return { call_id: callId, tenant_id: tenantId, type, payload, at };
    })), valid.map((i) => i.callId)])).rows : [];
    const byCall = new Map(rows.map((r) => [r.call_id, r]));
    return items.map((i) => {
      if (!EVENT_TYPES.includes(i.event.type)) return new ApiError('validation_failed', `unknown live item type ${String(i.event.type)}`);
      const r = byCall.get(i.callId);
      return r ? toMessage(r) : new ApiError('not_found', 'call not found');
    });
  }

  /** Stores the item with the call's next seq; not_found when the call is not this tenant's. */
  async append(tenantId: string, callId: string, event: CallEventInput): Promise<CallEventMessage> {
    const [out] = await this.appendMany([{ tenantId, callId, event }]);
    if (out instanceof ApiError) throw out;
    return out;
  }

  /** Items with seq > afterSeq in seq order (at most `limit`). The caller has checked the call's tenant. */
  async after(callId: string, afterSeq: number, limit = 10_000): Promise<CallEventMessage[]> {
    const r = await this.db.query<EventRow>(
      'SELECT call_id, seq, type, payload, at FROM call_events WHERE call_id = $1 AND seq > $2 ORDER BY seq LIMIT $3',
      [callId, afterSeq, limit]);
    return r.rows.map(toMessage);
  }

  /** Tenant-scoped variant for the history route. */
  async afterForTenant(tenantId: string, callId: string, afterSeq: number, limit: number): Promise<CallEventMessage[]> {
    const r = await this.db.query<EventRow>(
      'SELECT call_id, seq, type, payload, at FROM call_events WHERE call_id = $1 AND tenant_id = $2 AND seq > $3 ORDER BY seq LIMIT $4',
      [callId, tenantId, afterSeq, limit]);
    return r.rows.map(toMessage);
  }

  /** Highest stored seq of the call (0 when none). */
  async lastSeq(callId: string): Promise<number> {
    const r = await this.db.query<{ last_seq: number }>('SELECT last_seq FROM call_event_counters WHERE call_id = $1', [callId]);
    return r.rows[0] ? Number(r.rows[0].last_seq) : 0;
  }
}


/**
 * SQL of the calls table and the row -> public JSON mapping. Every query filters by tenant_id, except the two an
 * instance runs over its own calls (the lost-instance sweep, a recording by call id). Status moves are written by
 * lifecycle.ts only (the one writer of `status`, with its live item); reports over many calls (src/analytics) and
 * the joins of other tables' own queries (campaign contacts, the privacy scope) stay with those tables.
 */
import type { Db, Queryable } from '../db/db.js';
import type { AgentSnapshot, CallDirection, CallMetrics, CallRecord, CallStatus, ListFilters } from './types.js';
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from './types.js';
import type { SummarySource } from '../dialog/summary.js';
import type { TransferMode } from '../adapters/types.js';

export interface CallRow {
  id: string; tenant_id: string; agent_id: string | null; agent: AgentSnapshot; to_number: string; language: string;
  context: Record<string, string>; tools: string[]; webhook_url: string | null; status: CallStatus; ended_reason: string | null;
  conversation_id: string | null; lead_id: string | null; campaign_id: string | null; carrier_call_id: string | null;
  instance_id: string | null; scenario: string | null; created_at: Date | string; answered_at: Date | string | null;
  ended_at: Date | string | null; duration_seconds: number | null; metrics: CallMetrics | null;
  extracted_data: Record<string, string | number> | null; actions_triggered: Array<{ type: string; status: string }> | null;
  human_escalation: boolean; recording_path: string | null; carrier_status: string | null;
  disclosure_delivered_at: Date | string | null;
  /** written when the call ends (migration 062); absent on rows read before it */
  summary?: string | null;
  /** who wrote it, model or fields (migration 067) */
  summary_source?: string | null;
  /** a transfer to a number the call ended with (migration 068) */
  transfer_target?: string | null; transfer_mode?: TransferMode | null;
  /** outbound or inbound; to_number is the lead's number either way (the callee, or the caller), line_number ours */
  direction?: CallDirection; line_number?: string | null;
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toRecord(row: CallRow, recordingUrl: (id: string) => string | null): CallRecord {
  return {
    id: row.id, status: row.status, ended_reason: row.ended_reason, agent_id: row.agent_id,
    ...(row.direction === 'inbound' ? { direction: 'inbound' as const, to: row.line_number ?? '', from: row.to_number }
      : { direction: 'outbound' as const, to: row.to_number, from: null }),
    language: row.language, context: row.context, tools: row.tools, webhook_url: row.webhook_url,
    conversation_id: row.conversation_id, lead_id: row.lead_id, campaign_id: row.campaign_id,
    created_at: iso(row.created_at)!, answered_at: iso(row.answered_at), ended_at: iso(row.ended_at),
    duration_seconds: row.duration_seconds, metrics: row.metrics, extracted_data: row.extracted_data,
    actions_triggered: row.actions_triggered, human_escalation: row.human_escalation,
    recording_url: row.recording_path ? recordingUrl(row.id) : null,
    disclosure_delivered_at: iso(row.disclosure_delivered_at ?? null), carrier_status: row.carrier_status ?? null,
    summary: row.summary ?? null, summary_source: row.summary ? (row.summary_source === 'model' ? 'model' : 'fields') : null,
    transfer: row.transfer_target ? { target: row.transfer_target, mode: row.transfer_mode ?? 'cold' } : null,
  };
}

/**
 * When the call was last known to be active: its latest live item or row update. A call whose instance died is
 * ended by another instance a lease later; its duration counts up to here, not up to when the loss was noticed.
 */
export async function lastActivityAt(q: Queryable, row: Pick<CallRow, 'id' | 'tenant_id'>): Promise<Date | undefined> {
  const r = await q.query<{ at: Date | string | null }>(
    `SELECT GREATEST((SELECT max(at) FROM call_events WHERE call_id = c.id), c.updated_at) AS at FROM calls c WHERE c.id = $1 AND c.tenant_id = $2`,
    [row.id, row.tenant_id]);
  const at = r.rows[0]?.at;
  return at ? new Date(at) : undefined;
}

/** Sets an answered call's duration_seconds to `until` - answered_at (whole seconds, never negative). */
export async function setDurationUntil(q: Queryable, tenantId: string, id: string, until: Date): Promise<void> {
  await q.query(
    `UPDATE calls SET duration_seconds = GREATEST(0, round(extract(epoch FROM ($3::timestamptz - answered_at))))::int
     WHERE id = $1 AND tenant_id = $2 AND answered_at IS NOT NULL`, [id, tenantId, until.toISOString()]);
}

/** The call's status if it exists and is the tenant's (a listener may not probe other tenants' ids). */
export async function callStatusOf(q: Queryable, tenantId: string, id: string): Promise<{ status: string } | undefined> {
  return (await q.query<{ status: string }>('SELECT status FROM calls WHERE id = $1 AND tenant_id = $2', [id, tenantId])).rows[0];
}

/** Ids among `ids` of the tenant's calls that are not over yet (privacy: a live call is ended before erasure). */
export async function liveCallIds(q: Queryable, tenantId: string, ids: string[]): Promise<string[]> {
  const r = await q.query<{ id: string }>('SELECT id FROM calls WHERE tenant_id = $1 AND id = ANY($2::text[]) AND NOT (status = ANY($3::text[]))',
    [tenantId, ids, TERMINAL_STATUSES]);
  return r.rows.map((x) => x.id);
}

/**
 * Calls an instance was running when it died, at most `limit`. Rare (an instance died), so a scan by instance and
 * status is acceptable here; no index is kept for it.
 */
export async function liveCallsOnInstance(q: Queryable, instanceId: string, limit: number): Promise<CallRow[]> {
  return (await q.query<CallRow>('SELECT * FROM calls WHERE instance_id = $1 AND status = ANY($2::text[]) LIMIT $3', [instanceId, ACTIVE_STATUSES, limit])).rows;
}

/** The id of a call already made for the lead, if any (a lead is called once). */
/** A call of the lead placed at or after `since` (a job's creation: an earlier call is not this job's, e.g. before a call-back). */
export async function callOfLead(q: Queryable, tenantId: string, leadId: string, since?: Date): Promise<string | undefined> {
  return (await q.query<{ id: string }>('SELECT id FROM calls WHERE tenant_id = $1 AND lead_id = $2 AND ($3::timestamptz IS NULL OR created_at >= $3) LIMIT 1',
    [tenantId, leadId, since ?? null])).rows[0]?.id;
}

/** The lead's last call (either way) with what it extracted: what a call back already knows. */
export async function lastCallTo(q: Queryable, tenantId: string, e164: string): Promise<{ id: string; created_at: string; extracted_data: Record<string, string | number> | null } | undefined> {
  const r = await q.query<{ id: string; created_at: Date | string; extracted_data: Record<string, string | number> | null }>(
    `SELECT id, created_at, extracted_data FROM calls WHERE tenant_id = $1 AND to_number = $2 AND status IN ('completed', 'failed')
     ORDER BY created_at DESC LIMIT 1`, [tenantId, e164]);
  const row = r.rows[0];
  return row && { id: row.id, created_at: iso(row.created_at)!, extracted_data: row.extracted_data };
}

/** Where the call's recording was written (by the instance that ran it), if it was. */
export async function recordingPathOf(q: Queryable, callId: string): Promise<string | undefined> {
  return (await q.query<{ recording_path: string | null }>('SELECT recording_path FROM calls WHERE id = $1', [callId])).rows[0]?.recording_path ?? undefined;
}

export class CallRepo {
  constructor(private readonly db: Db) {}

  // Calls are inserted by dispatch_calls (src/db/functions/dispatch_calls.sql, CallService.dispatch): lock, count,
  // conversation, call and its first status items (also its first transitions) in one statement.

  /** Active calls of the tenant (the concurrency limit's measure; dispatch_calls counts the same statuses). */
  async countActive(q: Queryable, tenantId: string): Promise<number> {
    const r = await q.query<{ n: string | number }>('SELECT count(*) AS n FROM calls WHERE tenant_id = $1 AND status = ANY($2::text[])',
      [tenantId, ACTIVE_STATUSES]);
    return Number(r.rows[0].n);
  }

  async get(tenantId: string, id: string, q: Queryable = this.db): Promise<CallRow | undefined> {
    return (await q.query<CallRow>('SELECT * FROM calls WHERE id = $1 AND tenant_id = $2', [id, tenantId])).rows[0];
  }

  async transitions(tenantId: string, id: string, q: Queryable = this.db) {
    const r = await q.query<{ from_status: string | null; to_status: string; reason: string | null; at: Date | string }>(
      'SELECT from_status, to_status, reason, at FROM call_lifecycle WHERE call_id = $1 AND tenant_id = $2 ORDER BY era, pos', [id, tenantId]);
    return r.rows.map((t) => ({ from: t.from_status, to: t.to_status, reason: t.reason, at: iso(t.at)! }));
  }

  /** Newest first; keyset cursor (created_at, id) or offset. */
  async list(tenantId: string, f: ListFilters): Promise<CallRow[]> {
    const where = ['tenant_id = $1'];
    const args: unknown[] = [tenantId];
    const add = (sql: string, v: unknown) => { args.push(v); where.push(sql.replace('?', `$${args.length}`)); };
    if (f.status) add('status = ?', f.status);
    if (f.agent_id) add('agent_id = ?', f.agent_id);
    if (f.created_after) add('created_at > ?', f.created_after);
    if (f.created_before) add('created_at < ?', f.created_before);
    if (f.cursor) {
      const [at, id] = decodeCursor(f.cursor);
      args.push(at, id);
      where.push(`(created_at, id) < ($${args.length - 1}::timestamptz, $${args.length})`);
    }
    args.push(f.limit, f.offset ?? 0);
    return (await this.db.query<CallRow>(
      `SELECT * FROM calls WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${args.length - 1} OFFSET $${args.length}`,
      args)).rows;
  }

  async saveOutcome(tenantId: string, id: string, o: {
    metrics: CallMetrics; extracted: Record<string, string | number>; actions: Array<{ type: string; status: string }>;
    humanEscalation: boolean; recordingPath: string | null; disclosureDeliveredAt: Date | null; summary?: string | null; summarySource?: SummarySource | null;
  }): Promise<void> {
    await this.db.query(
      `UPDATE calls SET metrics = $3::jsonb, extracted_data = $4::jsonb, actions_triggered = $5::jsonb,
         human_escalation = human_escalation OR $6, recording_path = $7, disclosure_delivered_at = $8, summary = $9, summary_source = $10, updated_at = now()
       WHERE id = $1 AND tenant_id = $2`,
      [id, tenantId, JSON.stringify(o.metrics), JSON.stringify(o.extracted), JSON.stringify(o.actions), o.humanEscalation, o.recordingPath,
        o.disclosureDeliveredAt, o.summary ?? null, o.summary ? o.summarySource ?? 'fields' : null]);
  }

  /** Where the call was transferred and how (it ends transferred next). */
  async setTransfer(tenantId: string, id: string, target: string, mode: TransferMode): Promise<void> {
    await this.db.query('UPDATE calls SET transfer_target = $3, transfer_mode = $4 WHERE id = $1 AND tenant_id = $2', [id, tenantId, target, mode]);
  }

  /** What the carrier said of the call (its status, error code, hang-up cause). */
  async setCarrierStatus(tenantId: string, id: string, status: string): Promise<void> {
    await this.db.query('UPDATE calls SET carrier_status = $3 WHERE id = $1 AND tenant_id = $2', [id, tenantId, status.slice(0, 200)]);
  }

  /** False when the call has ended (its end, and the webhook read with it, came first: nothing to escalate). */
  async markEscalated(tenantId: string, id: string): Promise<boolean> {
    const r = await this.db.query('UPDATE calls SET human_escalation = true, updated_at = now() WHERE id = $1 AND tenant_id = $2 AND NOT (status = ANY($3::text[]))',
      [id, tenantId, TERMINAL_STATUSES]);
    return r.rowCount > 0;
  }
}

export const encodeCursor = (row: CallRow) => Buffer.from(`${iso(row.created_at)}|${row.id}`).toString('base64url');

export function decodeCursor(cursor: string): [string, string] {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!at || !id || Number.isNaN(Date.parse(at))) throw new RangeError('bad cursor');
  return [at, id];
}

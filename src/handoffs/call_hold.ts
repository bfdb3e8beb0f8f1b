/**
 * The storage side of a call waiting for an operator: a hold nobody answered leaves the queue, and the call-back the
 * caller accepted becomes a lead call scheduled for later (a new lead with source 'callback', dialed by the lead
 * scheduler once due and inside calling hours; its conversation is the call's, so the call-back continues it).
 */
import type { Db, Queryable } from '../db/db.js';
import { newId } from '../ids.js';

/**
 * The call's handoff left the queue unanswered (only while still waiting: an operator who just accepted keeps it).
 * `action`: 'unanswered' (the hold time ran out) or 'call_ended' (the caller left, or the call ended, while waiting).
 */
export async function closeUnansweredHandoff(db: Db, tenantId: string, conversationId: string, action: 'unanswered' | 'call_ended' = 'unanswered'): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query(
      `UPDATE conversations SET handoff_state = 'resolved', state = 'closed', handoff_ended_at = now(), updated_at = now()
       WHERE id = $1 AND tenant_id = $2 AND state = 'handoff' AND handoff_state = 'waiting' RETURNING id`, [conversationId, tenantId]);
    if (!r.rows[0]) return false;
    await tx.query(`INSERT INTO handoff_events (conversation_id, tenant_id, action, from_state, to_state, by_sub) VALUES ($1, $2, $3, 'waiting', 'resolved', 'agent')`,
      [conversationId, tenantId, action]);
    return true;
  });
}

/** The call ended: its handoff, waiting or with an operator, is resolved (history action 'call_ended'). */
export async function closeHandoffOfEndedCall(db: Db, tenantId: string, conversationId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query<{ from_state: string }>(
      `UPDATE conversations c SET handoff_state = 'resolved', state = 'closed', handoff_ended_at = now(), updated_at = now()
       FROM (SELECT handoff_state FROM conversations WHERE id = $1 AND tenant_id = $2 FOR UPDATE) prev
       WHERE c.id = $1 AND c.tenant_id = $2 AND c.state = 'handoff' AND c.handoff_state IN ('waiting', 'with_operator')
       RETURNING prev.handoff_state AS from_state`, [conversationId, tenantId]);
    if (!r.rows[0]) return false;
    await tx.query(`INSERT INTO handoff_events (conversation_id, tenant_id, action, from_state, to_state, by_sub) VALUES ($1, $2, 'call_ended', $3, 'resolved', 'agent')`,
      [conversationId, tenantId, r.rows[0].from_state]);
    return true;
  });
}

const isoOrNull = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** The handoff's times for the call.completed webhook; undefined when the call's conversation never went to the queue. */
export async function handoffTimes(q: Queryable, tenantId: string, conversationId: string) {
  const r = await q.query<{ handoff_queued_at: unknown; handoff_accepted_at: unknown; handoff_ended_at: unknown }>(
    'SELECT handoff_queued_at, handoff_accepted_at, handoff_ended_at FROM conversations WHERE id = $1 AND tenant_id = $2', [conversationId, tenantId]);
  const c = r.rows[0];
  if (!c?.handoff_queued_at) return undefined;
  return { queued_at: isoOrNull(c.handoff_queued_at)!, accepted_at: isoOrNull(c.handoff_accepted_at), ended_at: isoOrNull(c.handoff_ended_at) };
}

export interface CallbackRequest {
  tenantId: string; callId: string; e164: string; conversationId: string | null; leadId: string | null;
  /** who to ask for: the caller's name if the call learnt it */
  name: string | null; delayMinutes: number; now?: Date;
}

/** Schedules the call-back: a lead (source 'callback') and its pending job, in one transaction. Returns the lead id and when. */
export async function scheduleCallback(db: Db, c: CallbackRequest): Promise<{ lead_id: string; scheduled_for: string }> {
  const due = new Date((c.now ?? new Date()).getTime() + c.delayMinutes * 60_000);
  const id = newId('lead');
  await db.transaction(async (tx) => {
    const prior = c.leadId
      ? (await tx.query<{ name: string; domain: string; timezone: string | null }>('SELECT name, domain, timezone FROM leads WHERE id = $1 AND tenant_id = $2', [c.leadId, c.tenantId])).rows[0]
      : undefined;
    await tx.query(
      `INSERT INTO leads (id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_status, call_reason, scheduled_for, created_by)
       VALUES ($1, $2, $3, $4, 'callback', $5, $6, $7, 'scheduled', 'callback_requested', $8, $9)`,
      [id, c.tenantId, c.name ?? prior?.name ?? 'Caller', c.e164, prior?.domain ?? 'callback', prior?.timezone ?? null, c.conversationId, due, `call:${c.callId}`]);
    await tx.query(`INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at, status) VALUES ($1, $2, $3, 'pending')`, [c.tenantId, id, due]);
  });
  return { lead_id: id, scheduled_for: due.toISOString() };
}

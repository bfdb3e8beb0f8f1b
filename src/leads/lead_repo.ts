/** Leads (table leads) and the consent log (table consents). Every query is tenant-scoped. */
import type { Queryable } from '../db/db.js';

export type LeadCallStatus = 'queued' | 'dispatched' | 'blocked' | 'scheduled' | 'failed';

export interface LeadRow {
  id: string; tenant_id: string; name: string; e164: string; source: string; domain: string; timezone: string | null;
  conversation_id: string | null; call_id: string | null; call_status: LeadCallStatus; call_reason: string | null;
  scheduled_for: string | null; created_by: string; created_at: string;
}

export interface Consent { id: string; e164: string; method: string; consented_at: string; evidence: string | null; recorded_by: string; created_at: string }

const iso = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const LEAD_COLS = 'id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_id, call_status, call_reason, scheduled_for, created_by, created_at';
const leadRow = (r: LeadRow): LeadRow => ({ ...r, scheduled_for: iso(r.scheduled_for), created_at: iso(r.created_at)! });
const consentRow = (r: Consent): Consent => ({ ...r, consented_at: iso(r.consented_at)!, created_at: iso(r.created_at)! });

export class LeadRepo {
  constructor(private db: Queryable) {}

  /**
   * One statement (atomic without a transaction): the lead's conversation with its disclosure as the first agent
   * message (the agent's disclosure_script, read in the same statement; `fallbackText` when the agent is missing), the lead, and its call job when it may be dialed ('claimed' by `instanceId` to dial now, or
   * 'pending' until `due`). created_at is the service clock, the one duplicate detection compares against.
   * With `dndAt`, the do-not-disturb half of the gate (src/leads/gates.ts) is evaluated in the same statement: a
   * number in the tenant's DND registry without a consent given at or before `dndAt` makes the lead 'blocked'
   * (reason 'dnd') and no job is created, whatever `l` and `job` said (they carry the calling-hours outcome).
   */
  async insertWithConversation(q: Queryable, l: Omit<LeadRow, 'created_at' | 'call_id'>, createdAt: Date,
    disclosure: { agentId: string; fallbackText: string; meta: Record<string, unknown> }, job: { status: 'claimed' | 'pending'; due: Date | string; instanceId: string } | null,
    dndAt: Date | null = null,
    /**
     * When the lead is claimed to be dialed at once, commit without waiting for the WAL flush: the caller goes on
     * to dial, and every outcome of that (the call's queued status item and the lead's dispatched mark, or the
     * job's reschedule or failure) is a synchronous commit made before the caller answers, which flushes this
     * one too. A lead that is not dialed now commits synchronously as usual.
     */
    asyncWhenDialed = false,
  ): Promise<{ lead: LeadRow; jobId: number | null }> {
    const r = await q.query<LeadRow & { job_id: number | null; commit_mode: string }>(
      `WITH gate AS (SELECT $20::timestamptz IS NOT NULL
           AND EXISTS (SELECT 1 FROM dnd_numbers WHERE tenant_id = $2 AND e164 = $4)
           AND NOT EXISTS (SELECT 1 FROM consents WHERE tenant_id = $2 AND e164 = $4 AND consented_at <= $20::timestamptz) AS dnd),
       conv AS (INSERT INTO conversations (id, tenant_id, domain, lead_id) VALUES ($8, $2, $6, $1) RETURNING id),
       msg AS (INSERT INTO conversation_messages (conversation_id, tenant_id, role, text, meta)
         SELECT id, $2, 'agent', COALESCE((SELECT disclosure_script FROM agents WHERE tenant_id = $2 AND id = $19), $14), $15::jsonb FROM conv),
       lead AS (INSERT INTO leads (id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_status, call_reason, scheduled_for, created_by, created_at)
         SELECT $1,$2,$3,$4,$5,$6,$7,conv.id,
           CASE WHEN gate.dnd THEN 'blocked' ELSE $9::text END, CASE WHEN gate.dnd THEN 'dnd' ELSE $10::text END,
           CASE WHEN gate.dnd THEN NULL ELSE $11::timestamptz END, $12, $13
         FROM conv, gate RETURNING ${LEAD_COLS}),
       job AS (INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at, status, claimed_at, claimed_by, attempts)
         SELECT $2, lead.id, $17, $16, CASE WHEN $16 = 'claimed' THEN now() END, CASE WHEN $16 = 'claimed' THEN $18 END,
           CASE WHEN $16 = 'claimed' THEN 1 ELSE 0 END FROM lead, gate WHERE $16 IS NOT NULL AND NOT gate.dnd RETURNING id)
       SELECT lead.*, (SELECT id FROM job) AS job_id,
         set_config('synchronous_commit', CASE WHEN $21 AND $16 = 'claimed' AND NOT gate.dnd THEN 'off'
           ELSE current_setting('synchronous_commit') END, true) AS commit_mode
       FROM lead, gate`,
      [l.id, l.tenant_id, l.name, l.e164, l.source, l.domain, l.timezone, l.conversation_id, l.call_status, l.call_reason, l.scheduled_for,
        l.created_by, createdAt, disclosure.fallbackText, JSON.stringify(disclosure.meta), job?.status ?? null, job?.due ?? null, job?.instanceId ?? null,
        disclosure.agentId, dndAt, asyncWhenDialed]);
    const { job_id, commit_mode: _mode, ...lead } = r.rows[0];
    return { lead: leadRow(lead as LeadRow), jobId: job_id == null ? null : Number(job_id) };
  }

  /** The newest lead for the number created after `since`, if any (duplicate detection). */
  async recent(tx: Queryable, tenantId: string, e164: string, since: Date): Promise<LeadRow | undefined> {
    const r = await tx.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 AND e164 = $2 AND created_at > $3
      ORDER BY created_at DESC LIMIT 1`, [tenantId, e164, since]);
    return r.rows[0] && leadRow(r.rows[0]);
  }

  async get(tenantId: string, id: string): Promise<LeadRow | undefined> {
    const r = await this.db.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r.rows[0] && leadRow(r.rows[0]);
  }

  /** Newest first; `before` is the created_at/id cursor of the last item of the previous page. */
  async list(tenantId: string, limit: number, before?: { at: string; id: string }): Promise<LeadRow[]> {
    const r = before
      ? await this.db.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 AND (created_at, id) < ($2::timestamptz, $3)
          ORDER BY created_at DESC, id DESC LIMIT $4`, [tenantId, before.at, before.id, limit])
      : await this.db.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [tenantId, limit]);
    return r.rows.map(leadRow);
  }

  async setCall(tenantId: string, id: string, call: { callId: string | null; status: LeadCallStatus; reason: string | null; scheduledFor?: Date | null }): Promise<void> {
    await this.db.query(`UPDATE leads SET call_id = COALESCE($3, call_id), call_status = $4, call_reason = $5, scheduled_for = $6
      WHERE tenant_id = $1 AND id = $2`, [tenantId, id, call.callId, call.status, call.reason, call.scheduledFor ?? null]);
  }
}

export class ConsentRepo {
  constructor(private db: Queryable) {}

  async add(c: Omit<Consent, 'created_at'> & { tenant_id: string }): Promise<Consent> {
    const r = await this.db.query<Consent>(
      `INSERT INTO consents (id, tenant_id, e164, method, consented_at, evidence, recorded_by) VALUES ($1,$2,$3,$4,$5,$6,$7)
       RETURNING id, e164, method, consented_at, evidence, recorded_by, created_at`,
      [c.id, c.tenant_id, c.e164, c.method, c.consented_at, c.evidence, c.recorded_by]);
    return consentRow(r.rows[0]);
  }

  async list(tenantId: string, e164?: string): Promise<Consent[]> {
    const r = await this.db.query<Consent>(
      `SELECT id, e164, method, consented_at, evidence, recorded_by, created_at FROM consents
       WHERE tenant_id = $1 AND ($2::text IS NULL OR e164 = $2) ORDER BY created_at, id`, [tenantId, e164 ?? null]);
    return r.rows.map(consentRow);
  }
}

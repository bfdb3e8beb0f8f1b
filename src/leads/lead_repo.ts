/** Leads (table leads) and the consent log (table consents). Every query is tenant-scoped. */
import type { Queryable } from '../db/db.js';

export type LeadCallStatus = 'queued' | 'dispatched' | 'blocked' | 'scheduled' | 'failed';

export interface LeadRow {
  id: string; tenant_id: string; name: string; e164: string; source: string; domain: string; timezone: string | null;
  conversation_id: string | null; call_id: string | null; call_status: LeadCallStatus; call_reason: string | null;
  scheduled_for: string | null; created_by: string; created_at: string;
}

/** A lead to store (LeadRepo.createMany); call_status/call_reason/scheduled_for carry the calling-hours outcome. */
export interface NewLead extends Omit<LeadRow, 'created_at' | 'call_id'> {
  created_at: Date;
  disclosure: { agentId: string; fallbackText: string; meta: Record<string, unknown> };
  /** its call job: 'claimed' by `instanceId` to dial now, or 'pending' until `due`; null: no job */
  job: { status: 'claimed' | 'pending'; due: Date | string; instanceId: string } | null;
  /**
   * a dispatch_calls item: when the gates let the lead through now (job 'claimed'), its call is dispatched in the
   * same statement instead of through the job; null: dial through the job
   */
  dial: { id: string } | null;
  /** when a dial is refused for the tenant's concurrency limit, the scheduler retries it at this time */
  retryAt: Date;
  /** evaluate the DND registry and consents at this time (null: no DND check) */
  dndAt: Date | null;
  /** an earlier lead of the number created after this time makes this one a duplicate (null: no check) */
  dupSince: Date | null;
}

/** `call`: dispatch_calls' answer when the lead carried a dial (o_outcome 'ok': the call is stored) */
export interface CreatedLead { lead: LeadRow; jobId: number | null; duplicate: boolean; call: { o_outcome: string } | null }

export interface Consent { id: string; e164: string; method: string; consented_at: string; evidence: string | null; recorded_by: string; created_at: string }

const iso = (v: unknown) => (v == null ? null : v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());
const LEAD_COLS = 'id, tenant_id, name, e164, source, domain, timezone, conversation_id, call_id, call_status, call_reason, scheduled_for, created_by, created_at';
const leadRow = (r: LeadRow): LeadRow => ({ ...r, scheduled_for: iso(r.scheduled_for), created_at: iso(r.created_at)! });
const consentRow = (r: Consent): Consent => ({ ...r, consented_at: iso(r.consented_at)!, created_at: iso(r.created_at)! });

export class LeadRepo {
  constructor(private db: Queryable) {}

  /**
   * Stores leads of one group commit (src/db/functions/create_leads.sql): per item the duplicate check (with
   * `dupSince`), the DND half of the gate (with `dndAt`), the conversation opening with the agent's disclosure,
   * the lead and its call: dispatched in the same statement (`dial`, under the engine's
   * `dispatchLimit`) or a job. Answers each item in order.
   */
  async createMany(items: NewLead[], instanceId: string, dispatchLimit: number): Promise<CreatedLead[]> {
    type Out = { o_i: number; o_duplicate: boolean; o_job_id: number | string | null; o_lead: LeadRow | string; o_call: { o_outcome: string } | string | null };
    const r = await this.db.query<Out>(
      'SELECT o_i, o_duplicate, o_job_id, o_lead, o_call FROM create_leads($1::jsonb, $2, $3)',
      [JSON.stringify(items.map((l, i) => ({
        i, id: l.id, tenant: l.tenant_id, name: l.name, e164: l.e164, source: l.source, domain: l.domain, timezone: l.timezone,
        conversation_id: l.conversation_id, call_status: l.call_status, call_reason: l.call_reason, scheduled_for: l.scheduled_for,
        created_by: l.created_by, created_at: l.created_at, agent_id: l.disclosure.agentId, fallback_text: l.disclosure.fallbackText,
        meta: l.disclosure.meta, job_status: l.job?.status ?? null, job_due: l.job?.due ?? null, job_instance: l.job?.instanceId ?? null,
        dnd_at: l.dndAt, dup_since: l.dupSince, dial: l.dial, retry_at: l.retryAt,
      }))), instanceId, dispatchLimit]);
    const out: CreatedLead[] = new Array(items.length);
    for (const row of r.rows) {
      const lead = typeof row.o_lead === 'string' ? JSON.parse(row.o_lead) as LeadRow : row.o_lead;
      const call = typeof row.o_call === 'string' ? JSON.parse(row.o_call) as { o_outcome: string } : row.o_call;
      out[row.o_i] = { lead: leadRow(lead), jobId: row.o_job_id == null ? null : Number(row.o_job_id), duplicate: row.o_duplicate, call };
    }
    return out;
  }

  async get(tenantId: string, id: string): Promise<LeadRow | undefined> {
    const r = await this.db.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 AND id = $2`, [tenantId, id]);
    return r.rows[0] && leadRow(r.rows[0]);
  }

  /** The newest lead with this number (a call back from it is theirs). */
  async byNumber(tenantId: string, e164: string): Promise<LeadRow | undefined> {
    const r = await this.db.query<LeadRow>(`SELECT ${LEAD_COLS} FROM leads WHERE tenant_id = $1 AND e164 = $2 ORDER BY created_at DESC LIMIT 1`, [tenantId, e164]);
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

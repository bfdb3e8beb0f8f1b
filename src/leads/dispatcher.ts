/**
 * Places a lead's call through a durable job (table lead_call_jobs). A lead dialed at once is normally dialed in
 * its own statement with no job (create_leads); a job exists for a lead waiting for its calling window
 * ("pending"), one refused for the tenant's concurrency limit (retried, "pending"), and one dialed inline through
 * a call port that cannot dial inside the lead's statement ("claimed" at once by the creating instance). Any
 * instance's periodic claim (UPDATE … WHERE id IN (… FOR UPDATE SKIP LOCKED)) picks up due jobs and jobs whose
 * claim lease expired (the claiming instance died), so a restart loses nothing and two instances never claim the
 * same job. Before dialing, a call already carrying the lead id is looked for, so an expired lease after a
 * successful dial does not dial twice.
 */
import type { Db } from '../db/db.js';
import { ApiError } from '../errors.js';
import { callOfLead } from '../calls/repo.js';
import type { Logger } from '../log.js';
import { checkCallGates } from './gates.js';
import { LeadRepo, type LeadCallStatus, type LeadRow } from './lead_repo.js';
import type { LeadCallPort } from './types.js';

export interface Job { id: number; tenant_id: string; lead_id: string; created_at?: Date | string }

/** Retryable engine refusals (concurrency) wait this long before the next attempt, ms. */
export const RETRY_DELAY_MS = 30_000;

export class LeadDispatcher {
  readonly #leads: LeadRepo;
  #timer?: NodeJS.Timeout;
  #running?: Promise<unknown>;

  constructor(private readonly o: {
    db: Db; log: Logger; instanceId: string; leaseSeconds: number;
    calls: () => LeadCallPort; clock: () => Date;
  }) {
    this.#leads = new LeadRepo(o.db);
  }

  /** Claims due (and lease-expired) jobs; returns how many were claimed. */
  async claimDue(limit = 50): Promise<Job[]> {
    const r = await this.o.db.query<Job>(
      `UPDATE lead_call_jobs SET status = 'claimed', claimed_at = now(), claimed_by = $2, attempts = attempts + 1
       WHERE id IN (SELECT id FROM lead_call_jobs
         WHERE (status = 'pending' AND due_at <= $1) OR (status = 'claimed' AND claimed_at < now() - make_interval(secs => $3))
         ORDER BY due_at LIMIT $4 FOR UPDATE SKIP LOCKED)
       RETURNING id, tenant_id, lead_id, created_at`, [this.o.clock(), this.o.instanceId, this.o.leaseSeconds, limit]);
    return r.rows.map((j) => ({ ...j, id: Number(j.id) }));
  }

  /** One scheduler pass: claim due jobs, re-check the gates at the current time, dial. */
  async tick(): Promise<number> {
    const jobs = await this.claimDue();
    for (const job of jobs) await this.run(job).catch((err) => this.o.log.error({ err, job: job.id }, 'scheduled lead call failed'));
    return jobs.length;
  }

  /**
   * Dials one claimed job. From the scheduler (`fresh` absent) the lead is re-read, an earlier call for it is
   * looked for, and the gates are evaluated again (a DND entry may have arrived meanwhile). Inline, right
   * after the lead's own transaction, `fresh` is that lead and none of this can have changed.
   */
  async run(job: Job, fresh?: LeadRow): Promise<LeadRow | undefined> {
    const recheck = !fresh;
    const lead = fresh ?? await this.#leads.get(job.tenant_id, job.lead_id);
    if (!lead) { await this.#finish(job, 'done', 'lead gone'); return undefined; }
    const set = async (c: { callId: string | null; status: LeadCallStatus; reason: string | null; scheduledFor?: Date | null }) => {
      await this.#leads.setCall(job.tenant_id, lead.id, c);
      return { ...lead, call_id: c.callId ?? lead.call_id, call_status: c.status, call_reason: c.reason, scheduled_for: c.scheduledFor?.toISOString() ?? null };
    };
    if (recheck) {
      const existing = await callOfLead(this.o.db, job.tenant_id, lead.id, job.created_at ? new Date(job.created_at) : undefined);
      if (existing) {
        await this.#finish(job, 'done', null);
        return set({ callId: existing, status: 'dispatched', reason: null });
      }
      const now = this.o.clock();
      const gate = await checkCallGates(this.o.db, job.tenant_id, lead.e164, now, { timezone: lead.timezone });
      if (!gate.allowed && (gate.reason === 'dnd' || !gate.next_window_at)) {
        await this.#finish(job, 'done', `blocked: ${gate.reason}`);
        return set({ callId: null, status: 'blocked', reason: gate.reason });
      }
      if (!gate.allowed) return this.#reschedule(job, set, new Date(gate.next_window_at!), gate.reason);
    }
    const calls = this.o.calls();
    try {
      // The dispatch also marks the lead dispatched and this job done, in the call's own transaction.
      const call = await calls.dispatch(job.tenant_id, { to: lead.e164, lead_id: lead.id, lead_job_id: job.id, conversation_id: lead.conversation_id!,
        context: { customer_name: lead.name }, timezone: lead.timezone }, { dndAt: this.o.clock() });
      return { ...lead, call_id: call.id, call_status: 'dispatched', call_reason: null, scheduled_for: null };
    } catch (err) {
      const code = err instanceof ApiError ? err.code : 'internal';
      if (code === 'dnd_blocked') { // listed since the gate ran
        await this.#finish(job, 'done', 'blocked: dnd');
        return set({ callId: null, status: 'blocked', reason: 'dnd' });
      }
      if (err instanceof ApiError && err.extra.retryable !== false && (code === 'concurrency_limited' || code === 'unavailable')) {
        return this.#reschedule(job, set, new Date(this.o.clock().getTime() + RETRY_DELAY_MS), `retry:${code}`);
      }
      if (!(err instanceof ApiError)) this.o.log.error({ err, lead_id: lead.id }, 'lead call dispatch failed');
      await this.#finish(job, 'failed', err instanceof Error ? err.message.slice(0, 200) : 'failed');
      return set({ callId: null, status: 'failed', reason: code });
    }
  }

  start(periodMs: number): void {
    if (periodMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#running) return; // one pass at a time per instance
      this.#running = this.tick().catch((err) => this.o.log.error({ err }, 'lead scheduler pass failed')).finally(() => { this.#running = undefined; });
    }, periodMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  async #reschedule(job: Job, set: (c: { callId: null; status: 'scheduled'; reason: string; scheduledFor: Date }) => Promise<LeadRow>, at: Date, reason: string): Promise<LeadRow> {
    await this.o.db.query(`UPDATE lead_call_jobs SET status = 'pending', due_at = $2, claimed_at = NULL, claimed_by = NULL WHERE id = $1`, [job.id, at]);
    return set({ callId: null, status: 'scheduled', reason, scheduledFor: at });
  }

  async #finish(job: Job, status: 'done' | 'failed', note: string | null): Promise<void> {
    await this.o.db.query('UPDATE lead_call_jobs SET status = $2, last_error = $3 WHERE id = $1', [job.id, status, note]);
  }
}

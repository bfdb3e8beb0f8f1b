/**
 * A call-back the callee asked for ("call me tomorrow at five"): a lead call job due at that time (the dialog has
 * already moved it inside the calling hours), dialed by the lead scheduler through the usual gates, so a DND entry
 * or a closed window at that moment still holds. The lead shows it as scheduled.
 */
import type { Db } from '../db/db.js';
import { LeadRepo } from './lead_repo.js';

export async function scheduleCallback(db: Db, tenantId: string, leadId: string, at: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(`INSERT INTO lead_call_jobs (tenant_id, lead_id, due_at) VALUES ($1, $2, $3)`, [tenantId, leadId, at]);
    await new LeadRepo(tx).setCall(tenantId, leadId, { callId: null, status: 'scheduled', reason: 'callback_requested', scheduledFor: at });
  });
}

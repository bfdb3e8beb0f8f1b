/**
 * The dialer's recovery paths, for outcomes no listener delivered (the call ended on another instance, or while
 * no dialer ran) and for claims whose instance died between claiming a contact and linking its call.
 */
import type { Queryable } from '../db/db.js';
import { isTerminal, TERMINAL_STATUSES } from '../calls/types.js';

type Apply = (callId: string, status: string) => Promise<number>;
const ENDED_SQL = `(${TERMINAL_STATUSES.map((s) => `'${s}'`).join(',')})`;

/** Dialing contacts whose call has a final status in the calls table. */
export async function reconcileEnded(db: Queryable, apply: Apply): Promise<void> {
  const ended = await db.query<{ call_id: string; status: string }>(
    `SELECT cc.call_id, k.status FROM campaign_contacts cc JOIN calls k ON k.id = cc.call_id AND k.tenant_id = cc.tenant_id
      WHERE cc.state = 'dialing' AND k.status IN ${ENDED_SQL} LIMIT 1000`);
  for (const e of ended.rows) await apply(e.call_id, e.status);
}

/**
 * Claims older than the lease (database clock) with no call linked: if the dead instance had made the call
 * (same campaign and number, created after the claim, not linked to any contact), link it; otherwise give the
 * contact back (retry now, the attempt not counted).
 */
export async function reconcileOrphans(db: Queryable, leaseSeconds: number, now: Date, apply: Apply): Promise<void> {
  const orphans = await db.query<{ id: string; tenant_id: string; campaign_id: string; phone: string; claimed_at: string }>(
    `SELECT id, tenant_id, campaign_id, phone, claimed_at FROM campaign_contacts
      WHERE state = 'dialing' AND call_id IS NULL AND claimed_at < now() - make_interval(secs => $1) LIMIT 1000`, [leaseSeconds]);
  for (const k of orphans.rows) {
    const made = await db.query<{ id: string; status: string }>(
      `SELECT id, status FROM calls WHERE tenant_id = $1 AND campaign_id = $2 AND to_number = $3 AND created_at >= $4::timestamptz
        AND NOT EXISTS (SELECT 1 FROM campaign_contacts x WHERE x.call_id = calls.id) ORDER BY created_at LIMIT 1`,
      [k.tenant_id, k.campaign_id, k.phone, new Date(k.claimed_at).toISOString()]);
    const call = made.rows[0];
    if (call) {
      await db.query(`UPDATE campaign_contacts SET call_id = $2, updated_at = now() WHERE id = $1 AND state = 'dialing' AND call_id IS NULL`, [k.id, call.id]);
      if (isTerminal(call.status)) await apply(call.id, call.status);
    } else {
      await db.query(`UPDATE campaign_contacts SET state = 'retry', next_attempt_at = $2::timestamptz, attempts = attempts - 1, last_outcome = 'claim_expired', updated_at = now()
        WHERE id = $1 AND state = 'dialing' AND call_id IS NULL`, [k.id, now.toISOString()]);
    }
  }
}

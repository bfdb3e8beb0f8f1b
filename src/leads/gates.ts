/**
 * The do-not-disturb gate every outbound call from a lead or a campaign passes (seed §4 rule 2, TRAI/DND):
 *  1. a number in the tenant's DND registry is refused ('dnd') unless the consent log holds a consent for it
 *     given at or before `now` (consent lifts DND, never calling hours);
 *  2. outside calling hours in the callee's time zone (TRAI 09:00-21:00) the call waits ('calling_hours') and
 *     `next_window_at` says when it may be placed.
 * Pure apart from one read; `now` is injected so tests and schedulers use their own clock.
 */
import type { Queryable } from '../db/db.js';
import { TRAI_HOURS, nextWindowStart, type CallingHours } from './calling_hours.js';
import { zonesFor } from './phone.js';

export type GateResult =
  | { allowed: true }
  | { allowed: false; reason: 'dnd' | 'calling_hours'; next_window_at?: string };

export interface GateOptions {
  /** IANA zone of the callee when known (overrides the number's country) */
  timezone?: string | null;
  /** the number's country when the caller already parsed it (parseE164), to spare a second parse */
  country?: string;
  hours?: CallingHours;
}

export async function checkCallGates(db: Queryable, tenantId: string, e164: string, now: Date, opts: GateOptions = {}): Promise<GateResult> {
  const r = await db.query<{ dnd: boolean; consented: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM dnd_numbers WHERE tenant_id = $1 AND e164 = $2) AS dnd,
            EXISTS (SELECT 1 FROM consents WHERE tenant_id = $1 AND e164 = $2 AND consented_at <= $3) AS consented`,
    [tenantId, e164, now]);
  const { dnd, consented } = r.rows[0];
  if (dnd && !consented) return { allowed: false, reason: 'dnd' };
  return callingHoursGate(e164, now, opts);
}

/** The calling-hours half alone (no storage). */
export function callingHoursGate(e164: string, now: Date, opts: GateOptions = {}): GateResult {
  const zones = zonesFor(e164, opts.timezone, opts.country);
  const next = nextWindowStart(now, zones, opts.hours ?? TRAI_HOURS);
  if (next && next.getTime() === now.getTime()) return { allowed: true };
  return { allowed: false, reason: 'calling_hours', ...(next ? { next_window_at: next.toISOString() } : {}) };
}

/**
 * The gates every outbound call passes (TRAI/DND): leads, the lead scheduler, campaigns and
 * POST /v1/calls/dispatch.
 *  1. do-not-disturb and consent: a number in the tenant's DND registry is refused ('dnd') unless the consent log
 *     holds a consent for it given at or before `now` (consent lifts DND, never calling hours). The rule itself is
 *     the stored function dnd_blocks (src/db/functions/dnd_blocks.sql), which create_leads and dispatch_calls call
 *     inside their own statements;
 *  2. calling hours in the callee's time zone (TRAI 09:00-21:00; every zone of the number's country): outside them
 *     the call waits ('calling_hours') and `next_window_at` says when it may be placed. A number that reaches no
 *     one (phone.ts reachesNobody: the simulator's and those reserved for fiction) has no calling hours.
 * Pure apart from one read; `now` is injected so tests and schedulers use their own clock.
 */
import type { Queryable } from '../db/db.js';
import { TRAI_HOURS, nextWindowStart, type CallingHours } from './calling_hours.js';
import { reachesNobody, zonesFor } from './phone.js';

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
  if (await dndBlocks(db, tenantId, e164, now)) return { allowed: false, reason: 'dnd' };
  return callingHoursGate(e164, now, opts);
}

/** The do-not-disturb half alone: is the number blocked at `at` (the stored rule, dnd_blocks)? */
export async function dndBlocks(db: Queryable, tenantId: string, e164: string, at: Date): Promise<boolean> {
  const r = await db.query<{ blocked: boolean }>('SELECT dnd_blocks($1, $2, $3) AS blocked', [tenantId, e164, at]);
  return r.rows[0].blocked;
}

/** The calling-hours half alone (no storage). */
export function callingHoursGate(e164: string, now: Date, opts: GateOptions = {}): GateResult {
  if (reachesNobody(e164)) return { allowed: true };
  const zones = zonesFor(e164, opts.timezone, opts.country);
  const next = nextWindowStart(now, zones, opts.hours ?? TRAI_HOURS);
  if (next && next.getTime() === now.getTime()) return { allowed: true };
  return { allowed: false, reason: 'calling_hours', ...(next ? { next_window_at: next.toISOString() } : {}) };
}

/**
 * The KPIs, one SQL statement, same definitions on PostgreSQL and PGlite:
 *  - attempted: calls created in [from, to) that reached dialing or later: status is dialing, ringing,
 *    in_progress, completed, no_answer or busy; or the call was answered; or its lifecycle (call_lifecycle)
 *    shows a transition to dialing (so a call that was dialed and then failed or was canceled counts, one that
 *    was blocked, scheduled or failed before dialing does not).
 *  - connected: attempted calls that were answered (answered_at is set: they reached in_progress).
 *  - qualified: connected calls whose extracted_data.qualification_score >= KPI_QUALIFIED_MIN_SCORE (default 60).
 *  - booked: calls whose actions_triggered holds a calendar.event.create whose status starts with a 2xx code.
 *  - inbound: calls that came in (a lead calling one of the tenant's numbers); they count in the others too: a call
 *    that came in rang (attempted) and, once taken, was answered (connected).
 */
import type { Queryable } from '../db/db.js';
import { RANGE_WHERE, jsonNumber, rangeParams, type Range } from './range.js';

export interface Kpis { attempted: number; connected: number; qualified: number; booked: number; inbound: number }

export const KPI_DEFINITIONS = (minScore: number) => ({
  attempted: 'calls created in [from, to) that reached dialing or later (status dialing/ringing/in_progress/completed/no_answer/busy, answered, or a recorded transition to dialing)',
  connected: 'attempted calls that were answered (answered_at set, i.e. reached in_progress)',
  qualified: `connected calls with extracted_data.qualification_score >= ${minScore}`,
  booked: 'calls whose actions_triggered contains calendar.event.create with a 2xx status',
  inbound: 'calls created in [from, to) that came in (direction inbound); counted in the others too',
});

const REACHED_DIALING = `(c.status IN ('dialing','ringing','in_progress','completed','no_answer','busy') OR c.answered_at IS NOT NULL
  OR EXISTS (SELECT 1 FROM call_lifecycle tr WHERE tr.call_id = c.id AND tr.to_status = 'dialing'))`;
const ACTIONS = `(CASE WHEN jsonb_typeof(c.actions_triggered) = 'array' THEN c.actions_triggered ELSE '[]'::jsonb END)`;
const BOOKED = `EXISTS (SELECT 1 FROM jsonb_array_elements(${ACTIONS}) a
  WHERE a->>'type' = 'calendar.event.create' AND a->>'status' ~ '^2[0-9][0-9]($|_)')`;

export async function computeKpis(db: Queryable, tenant: string, r: Range, minScore: number): Promise<Kpis> {
  const res = await db.query<Kpis>(
    `SELECT count(*) FILTER (WHERE ${REACHED_DIALING})::int AS attempted,
            count(*) FILTER (WHERE c.answered_at IS NOT NULL)::int AS connected,
            count(*) FILTER (WHERE c.answered_at IS NOT NULL AND ${jsonNumber('c.extracted_data', 'qualification_score')} >= $5::float8)::int AS qualified,
            count(*) FILTER (WHERE ${BOOKED})::int AS booked,
            count(*) FILTER (WHERE c.direction = 'inbound')::int AS inbound
       FROM calls c WHERE ${RANGE_WHERE}`,
    [...rangeParams(tenant, r), minScore]);
  return res.rows[0];
}

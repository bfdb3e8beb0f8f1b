/**
 * GET /analytics in SQL: calls by status and by UTC day, and per agent and overall: average duration,
 * turn latency p50/p99 (percentile_cont over the per-call metrics latency_p50_ms / latency_p99_ms),
 * interruption rate (interruptions_handled / turn_count summed over calls with metrics) and escalation rate
 * (calls with human_escalation / connected calls). Reported rounded (ANALYTICS_PRECISION): durations and
 * latencies to 0.1 (s, ms), rates to 4 decimals; float sums would otherwise show as 819.8480000000001.
 */
import type { Queryable } from '../db/db.js';
import { RANGE_WHERE, jsonNumber, rangeParams, type Range } from './range.js';

export interface Summary {
  calls: number; connected: number; avg_duration_seconds: number | null;
  latency_p50_ms: number | null; latency_p99_ms: number | null;
  interruption_rate: number | null; escalation_rate: number | null;
}

const SUMMARY = `count(*)::int AS calls,
  count(c.answered_at)::int AS connected,
  avg(c.duration_seconds)::float8 AS avg_duration_seconds,
  percentile_cont(0.5) WITHIN GROUP (ORDER BY ${jsonNumber('c.metrics', 'latency_p50_ms')}) AS latency_p50_ms,
  percentile_cont(0.99) WITHIN GROUP (ORDER BY ${jsonNumber('c.metrics', 'latency_p99_ms')}) AS latency_p99_ms,
  (sum(${jsonNumber('c.metrics', 'interruptions_handled')}) / NULLIF(sum(${jsonNumber('c.metrics', 'turn_count')}), 0))::float8 AS interruption_rate,
  (count(*) FILTER (WHERE c.human_escalation)::float8 / NULLIF(count(c.answered_at), 0)) AS escalation_rate`;

/** Decimals reported per kind of value. */
export const ANALYTICS_PRECISION = { seconds: 1, ms: 1, rate: 4 } as const;

const round = (v: number | null, decimals: number): number | null => {
  if (v === null || v === undefined) return null;
  const f = 10 ** decimals;
  return Math.round(Number(v) * f) / f;
};

function rounded<T extends Summary>(s: T): T {
  const P = ANALYTICS_PRECISION;
  return {
    ...s,
    avg_duration_seconds: round(s.avg_duration_seconds, P.seconds),
    latency_p50_ms: round(s.latency_p50_ms, P.ms), latency_p99_ms: round(s.latency_p99_ms, P.ms),
    interruption_rate: round(s.interruption_rate, P.rate), escalation_rate: round(s.escalation_rate, P.rate),
  };
}

export async function computeAnalytics(db: Queryable, tenant: string, r: Range) {
  const p = rangeParams(tenant, r);
  const [byStatus, byDay, overall, perAgent] = await Promise.all([
    db.query<{ status: string; calls: number }>(`SELECT c.status, count(*)::int AS calls FROM calls c WHERE ${RANGE_WHERE} GROUP BY c.status ORDER BY c.status`, p),
    db.query<{ day: string; calls: number; connected: number }>(
      `SELECT to_char(date_trunc('day', c.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*)::int AS calls, count(c.answered_at)::int AS connected
         FROM calls c WHERE ${RANGE_WHERE} GROUP BY 1 ORDER BY 1`, p),
    db.query<Summary>(`SELECT ${SUMMARY} FROM calls c WHERE ${RANGE_WHERE}`, p),
    db.query<Summary & { agent_id: string | null }>(`SELECT c.agent_id, ${SUMMARY} FROM calls c WHERE ${RANGE_WHERE} GROUP BY c.agent_id ORDER BY c.agent_id`, p),
  ]);
  return {
    from: r.from.toISOString(), to: r.to.toISOString(), agent_id: r.agentId,
    by_status: Object.fromEntries(byStatus.rows.map((x) => [x.status, x.calls])),
    by_day: byDay.rows,
    ...rounded(overall.rows[0]),
    per_agent: perAgent.rows.map(rounded),
  };
}

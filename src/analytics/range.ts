/**
 * The query of /kpis and /analytics: a half-open time range [from, to) on calls.created_at and an agent filter.
 * A bare date is midnight UTC at the start of that day, so from=2026-11-01&to=2026-12-01 is November.
 */
import { z } from 'zod';
import { ApiError } from '../errors.js';

const DAY_MS = 86_400_000;

/** An instant (ISO 8601 with offset) or a date (YYYY-MM-DD: midnight UTC at the start of that day). */
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: 'must be an ISO 8601 date (2026-11-01, midnight UTC) or date-time with offset (2026-11-01T00:00:00Z)',
}).transform((s) => (s.length === 10 ? `${s}T00:00:00Z` : s));

export const RangeQuery = z.strictObject({
  from: instant.optional(),
  to: instant.optional(),
  agent_id: z.string().min(1).max(64).optional(),
});

export interface Range { from: Date; to: Date; agentId: string | null }

/** Defaults: to = now, from = to - 30 days. At most 366 days, from before to. */
export function resolveRange(q: z.infer<typeof RangeQuery>, now: Date): Range {
  const to = q.to ? new Date(q.to) : now;
  const from = q.from ? new Date(q.from) : new Date(to.getTime() - 30 * DAY_MS);
  const fields = [];
  if (from >= to) fields.push({ path: 'query.from', message: 'must be before to' });
  if (to.getTime() - from.getTime() > 366 * DAY_MS) fields.push({ path: 'query.to', message: 'range is at most 366 days' });
  if (fields.length) throw new ApiError('validation_failed', fields.map((f) => `${f.path}: ${f.message}`).join('; '), { fields });
  return { from, to, agentId: q.agent_id ?? null };
}

/** WHERE over calls aliased c: $1 tenant, $2 from, $3 to, $4 agent (NULL = all). */
export const RANGE_WHERE = `c.tenant_id = $1 AND c.created_at >= $2::timestamptz AND c.created_at < $3::timestamptz AND ($4::text IS NULL OR c.agent_id = $4::text)`;
export const rangeParams = (tenant: string, r: Range) => [tenant, r.from.toISOString(), r.to.toISOString(), r.agentId];

/** A jsonb field as a number when it is a JSON number (or a numeric string), else NULL: never a cast error. */
export const jsonNumber = (col: string, key: string) =>
  `(CASE WHEN jsonb_typeof(${col}->'${key}') = 'number' OR (jsonb_typeof(${col}->'${key}') = 'string' AND ${col}->>'${key}' ~ '^-?[0-9]+(\\.[0-9]+)?$') THEN (${col}->>'${key}')::float8 END)`;

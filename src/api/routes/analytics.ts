/** GET /kpis and GET /analytics: any tenant JWT or API key; computed in SQL over the tenant's calls. */
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { RangeQuery, resolveRange } from '../../analytics/range.js';
import { KPI_DEFINITIONS, computeKpis } from '../../analytics/kpis.js';
import { computeAnalytics } from '../../analytics/analytics.js';

export function analyticsRoutes(t: RouteTable, deps: AppDeps): void {
  const minScore = deps.config.KPI_QUALIFIED_MIN_SCORE;
  t.add({
    method: 'get', path: '/kpis', tag: 'analytics', auth: { kind: 'auth', apiKey: true }, query: RangeQuery,
    summary: `KPIs over calls created in [from, to) (ISO 8601 date-time, or a date YYYY-MM-DD meaning midnight UTC; default: the last 30 days), optionally for one agent_id. attempted: reached dialing or later (status dialing/ringing/in_progress/completed/no_answer/busy, answered, or a recorded transition to dialing); connected: answered (reached in_progress); qualified: connected with extracted_data.qualification_score >= ${minScore}; booked: actions_triggered has calendar.event.create with a 2xx status.`,
    handler: async (req) => {
      const range = resolveRange(parse(RangeQuery, req.query, 'query'), new Date());
      const k = await computeKpis(deps.db, principalOf(req).tenantId, range, minScore);
      return { ...k, from: range.from.toISOString(), to: range.to.toISOString(), agent_id: range.agentId, definitions: KPI_DEFINITIONS(minScore) };
    },
  });
  t.add({
    method: 'get', path: '/analytics', tag: 'analytics', auth: { kind: 'auth', apiKey: true }, query: RangeQuery,
    summary: 'Call analytics over [from, to) (ISO 8601 date-time, or a date YYYY-MM-DD meaning midnight UTC; default: the last 30 days), optionally for one agent_id: calls by status and by UTC day, average duration (s, rounded to 0.1), turn latency p50/p99 (ms, rounded to 0.1; percentile_cont over per-call metrics), interruption rate (interruptions_handled / turn_count) and escalation rate (escalated / connected), rates rounded to 4 decimals; overall and per agent.',
    handler: async (req) => {
      const range = resolveRange(parse(RangeQuery, req.query, 'query'), new Date());
      // its four aggregates from one snapshot, so the totals add up while calls are being dispatched and ended
      return deps.db.snapshot((q) => computeAnalytics(q, principalOf(req).tenantId, range));
    },
  });
}

/**
 * Privacy (admin JWT): export and erase a subject ({e164} or {subject} = SHA-256 hex of the E.164 string),
 * the audit trail, the tenant's transcript retention period, and retention runs.
 * POST /privacy/expire accepts an admin JWT or an API key (the service key is how a cron job calls it);
 * an operator JWT is refused.
 */
import { z } from 'zod';
import { ApiError } from '../../errors.js';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import type { RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { SubjectBody, hashOfInput } from '../../privacy/subject.js';

const RetentionBody = z.strictObject({ days: z.number().int().min(1).max(3650) });
const AuditQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export function privacyRoutes(t: RouteTable, deps: AppDeps): void {
  const admin = { kind: 'auth', role: 'admin' } as const;
  t.add({
    method: 'post', path: '/privacy/export', tag: 'privacy', auth: admin, body: SubjectBody,
    summary: "Export every row of the tenant's data about a subject ({e164} or {subject}: SHA-256 hex of the E.164 string), grouped by table. The export is audited (hash only).",
    handler: async (req) => {
      const p = principalOf(req);
      return deps.privacy.export(p.tenantId, hashOfInput(parse(SubjectBody, req.body)), p.sub);
    },
  });
  t.add({
    method: 'post', path: '/privacy/erase', tag: 'privacy', auth: admin, body: SubjectBody,
    summary: 'Erase a subject from leads, calls, transcripts, conversations, recordings (files too), webhook logs, campaign contacts, bookings and consents of the tenant, in one transaction; do-not-disturb entries are retained (an opt-out must keep working). Returns counts per table and the audit id. 409 while the subject has a call in progress.',
    responses: { 200: 'erased: counts per table, retained tables with reasons, audit id', 409: 'a call of the subject is in progress (retry when it ends)' },
    handler: async (req) => {
      const p = principalOf(req);
      return deps.privacy.erase(p.tenantId, hashOfInput(parse(SubjectBody, req.body)), p.sub);
    },
  });
  t.add({
    method: 'get', path: '/privacy/audit', tag: 'privacy', auth: admin, query: AuditQuery,
    summary: 'Audit trail of exports, erasures, retention changes and expiries: action, subject hash (never the number), counts, actor, time; newest first.',
    handler: async (req) => {
      const q = parse(AuditQuery, req.query, 'query');
      return { data: await deps.privacy.listAudit(principalOf(req).tenantId, q.limit) };
    },
  });
  t.add({
    method: 'get', path: '/privacy/retention', tag: 'privacy', auth: admin,
    summary: "The tenant's transcript retention period in days (the configured default when never set).",
    handler: async (req) => ({ days: await deps.privacy.getRetentionDays(principalOf(req).tenantId) }),
  });
  t.add({
    method: 'put', path: '/privacy/retention', tag: 'privacy', auth: admin, body: RetentionBody,
    summary: "Set the tenant's transcript retention period {days} (1-3650).",
    handler: async (req) => {
      const p = principalOf(req);
      return { days: await deps.privacy.setRetentionDays(p.tenantId, parse(RetentionBody, req.body).days, p.sub) };
    },
  });
  t.add({
    method: 'post', path: '/privacy/expire', tag: 'privacy', auth: { kind: 'auth', apiKey: true },
    summary: "Run transcript retention now for the caller's tenant: transcript items and conversation messages older than the retention period are deleted. Admin JWT or API key (Bearer or X-Api-Key); operator JWTs are refused. Also runs on a schedule (PRIVACY_EXPIRE_INTERVAL_MS).",
    responses: { 200: 'counts of deleted rows' },
    handler: async (req) => {
      const p = principalOf(req);
      if (p.kind === 'user' && p.role !== 'admin') throw new ApiError('forbidden', 'this route needs an admin JWT or an API key');
      const r = await deps.privacy.expire(p.tenantId, p.sub);
      return { deleted: r.deleted, default_cutoff: r.cutoff_default, retention_days: await deps.privacy.getRetentionDays(p.tenantId) };
    },
  });
}

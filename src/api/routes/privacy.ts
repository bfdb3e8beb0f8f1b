/**
 * Privacy (admin JWT): export and erase a subject ({e164} or {subject} = SHA-256 hex of the E.164 string, exactly
 * one), the audit trail, the tenant's transcript retention period, and retention runs. POST /privacy/expire accepts
 * an admin JWT or an API key of any role (the service key is how a cron job calls it); an operator JWT is refused.
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { SubjectBody, hashOfInput } from '../../privacy/subject.js';

const RetentionBody = z.strictObject({ days: z.number().int().min(1).max(3650) });
const AuditQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export function privacyRoutes(t: RouteTable, deps: AppDeps): void {
  const admin = { kind: 'auth', role: 'admin' } as const;
  t.add({
    method: 'post', path: '/privacy/export', tag: 'privacy', auth: admin, body: SubjectBody,
    summary: "Export every row of the tenant's data about a subject (exactly one of {e164} or {subject}: SHA-256 hex of the E.164 string; both or neither is a 400 saying so), grouped by table. The export is audited (hash only).",
    handler: async (req) => {
      const p = principalOf(req);
      return deps.privacy.export(p.tenantId, hashOfInput(bodyOf(req, SubjectBody)), p.sub);
    },
  });
  t.add({
    method: 'post', path: '/privacy/erase', tag: 'privacy', auth: admin, body: SubjectBody,
    summary: 'Erase a subject, in one request: calls of the subject not over yet are ended first (ended_reason erased, through the '
      + "call engine's hang-up path: carrier hang-up, stored outcome; a call driven by another instance is ended in storage), then "
      + 'leads, calls, transcripts, conversations, recordings (files too), webhook logs, campaign contacts, bookings and consents '
      + 'of the tenant go in one transaction; do-not-disturb entries and the audit of transactional calls are retained (with '
      + 'reasons). Returns ended_calls, counts per table and the audit id (the audit counts the ended calls).',
    responses: { 200: 'erased: ended_calls, counts per table, retained tables with reasons, audit id', 409: 'calls of the subject kept starting while it was erased (retry)' },
    handler: async (req) => {
      const p = principalOf(req);
      return deps.privacy.erase(p.tenantId, hashOfInput(bodyOf(req, SubjectBody)), p.sub, {
        endCalls: (ids) => deps.calls.endCalls(p.tenantId, ids, 'erased'),
        // a call's recording is on the disk of the instance that ran it: each deletes its own
        erasedCalls: async (ids) => { await deps.calls.commands?.erased(ids); },
      });
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
      return { days: await deps.privacy.setRetentionDays(p.tenantId, bodyOf(req, RetentionBody).days, p.sub) };
    },
  });
  t.add({
    method: 'post', path: '/privacy/expire', tag: 'privacy', auth: { kind: 'auth', role: 'admin', apiKey: true, apiKeyRole: 'operator' },
    summary: "Run transcript retention now for the caller's tenant: transcript items and conversation messages older than the retention period are deleted. Admin JWT or API key (Bearer or X-Api-Key); operator JWTs are refused. Also runs on a schedule (PRIVACY_EXPIRE_INTERVAL_MS).",
    responses: { 200: 'counts of deleted rows' },
    handler: async (req) => {
      const p = principalOf(req);
      const r = await deps.privacy.expire(p.tenantId, p.sub);
      return { deleted: r.deleted, default_cutoff: r.cutoff_default, retention_days: await deps.privacy.getRetentionDays(p.tenantId) };
    },
  });
}

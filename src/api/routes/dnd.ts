/**
 * Do-not-disturb registry and consent log (TRAI/DND). Auth, chosen because adding to DND or recording a
 * consent only ever follows a customer's own statement, while removing from DND loosens compliance:
 *  - POST /dnd/import, GET /dnd (the list), GET /dnd/check, POST /consents: operator JWT or service key;
 *  - DELETE /dnd/:phone and GET /consents/export (personal data in bulk): admin JWT.
 * A consent lets a DND number through the gate (never through calling hours).
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { ApiError, notFound } from '../../errors.js';
import { newId } from '../../ids.js';
import { toE164 } from '../../leads/phone.js';
import { toCsv } from '../../leads/csv.js';
import { dndBlocks } from '../../leads/gates.js';

const ImportBody = z.strictObject({
  numbers: z.array(z.string().min(3).max(40)).min(1).max(10_000),
  source: z.string().trim().min(1).max(100).default('import'),
});
const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(100),
  /** next_cursor of the previous page */
  cursor: z.string().regex(/^\+[1-9]\d{1,14}$/, 'not a cursor of this list').optional(),
});
const CheckQuery = z.strictObject({ phone: z.string().min(3).max(40) });
const ConsentBody = z.strictObject({
  phone: z.string().min(3).max(40),
  /** how consent was given, e.g. web_form, ivr_keypress, verbal_on_call (`source` is accepted as its alias) */
  method: z.string().trim().min(1).max(100).optional(),
  source: z.string().trim().min(1).max(100).optional(),
  consented_at: z.iso.datetime({ offset: true }),
  /** what proves it: a form submission id, a recording URL, a note */
  evidence: z.string().max(2000).optional(),
}).refine((b) => !!(b.method ?? b.source), { message: 'method (or source) is required', path: ['method'] });
const ExportQuery = z.strictObject({ format: z.enum(['json', 'csv']).default('json'), phone: z.string().min(3).max(40).optional() });

export function dndRoutes(t: RouteTable, deps: AppDeps): void {
  const region = deps.config.DEFAULT_PHONE_REGION;
  t.add({
    method: 'post', path: '/dnd/import', tag: 'dnd', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: ImportBody,
    summary: 'Bulk-add numbers (any format, normalised to E.164) to the tenant DND registry. All-or-nothing: one invalid number refuses the import (400 lists them).',
    responses: { 200: '{received, added, already_listed}' },
    handler: async (req) => {
      const body = bodyOf(req, ImportBody);
      const bad: { path: string; message: string }[] = [];
      const numbers = body.numbers.map((n, i) => {
        try { return toE164(n, region); } catch { bad.push({ path: `body.numbers.${i}`, message: 'not a valid phone number' }); return ''; }
      });
      if (bad.length) throw new ApiError('validation_failed', `${bad.length} invalid number(s)`, { fields: bad.slice(0, 50) });
      const unique = [...new Set(numbers)];
      const added = await deps.leads.dnd.importMany(principalOf(req).tenantId, unique, body.source);
      return { received: body.numbers.length, added, already_listed: unique.length - added };
    },
  });
  t.add({
    method: 'get', path: '/dnd', tag: 'dnd', auth: { kind: 'auth', role: 'operator', apiKey: true }, query: ListQuery,
    summary: 'The tenant DND registry by number (E.164, ascending): {e164, source, created_at}; page with limit (1-200) and cursor = next_cursor.',
    handler: async (req) => {
      const q = parse(ListQuery, req.query, 'query');
      const rows = await deps.leads.dnd.list(principalOf(req).tenantId, q.limit, q.cursor);
      return { data: rows, next_cursor: rows.length === q.limit ? rows.at(-1)!.e164 : null };
    },
  });
  t.add({
    method: 'get', path: '/dnd/check', tag: 'dnd', auth: { kind: 'auth', role: 'operator', apiKey: true }, query: CheckQuery,
    summary: 'Is the number on the tenant DND registry, and does a consent let it through?',
    handler: async (req) => {
      const e164 = toE164(parse(CheckQuery, req.query, 'query').phone, region, 'query.phone');
      const tenantId = principalOf(req).tenantId;
      const entry = await deps.leads.dnd.get(tenantId, e164);
      const consents = await deps.leads.consents.list(tenantId, e164);
      const now = new Date();
      const consented = consents.some((c) => Date.parse(c.consented_at) <= now.getTime());
      const callable = !(await dndBlocks(deps.db, tenantId, e164, now)); // the one DND rule (dnd_blocks.sql)
      return { phone: e164, dnd: !!entry, source: entry?.source ?? null, listed_at: entry?.created_at ?? null, consented, callable };
    },
  });
  t.add({
    method: 'delete', path: '/dnd/:phone', tag: 'dnd', auth: { kind: 'auth', role: 'admin' },
    summary: 'Remove a number (E.164 with the + URL-encoded as %2B, or national) from the tenant DND registry.',
    responses: { 204: 'removed', 404: 'not listed' },
    handler: async (req, res) => {
      const e164 = toE164(String(req.params.phone ?? ''), region, 'params.phone');
      if (!(await deps.leads.dnd.remove(principalOf(req).tenantId, e164))) throw notFound('DND entry');
      res.status(204).end();
    },
  });
  t.add({
    method: 'post', path: '/consents', tag: 'dnd', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: ConsentBody,
    summary: 'Record a consent (who, when, how, evidence); recorded_by is the caller of this route. A consent lets a DND number be called.',
    responses: { 201: 'the consent record' },
    handler: async (req, res) => {
      const body = bodyOf(req, ConsentBody);
      const p = principalOf(req);
      const consent = await deps.leads.consents.add({
        id: newId('cons'), tenant_id: p.tenantId, e164: toE164(body.phone, region), method: (body.method ?? body.source)!,
        consented_at: new Date(body.consented_at).toISOString(), evidence: body.evidence ?? null, recorded_by: p.sub,
      });
      res.status(201).json(consent);
    },
  });
  t.add({
    method: 'get', path: '/consents/export', tag: 'dnd', auth: { kind: 'auth', role: 'admin' }, query: ExportQuery,
    summary: 'Export the consent log as JSON ({data}) or CSV (format=csv, text/csv attachment), optionally for one number.',
    handler: async (req, res) => {
      const q = parse(ExportQuery, req.query, 'query');
      const e164 = q.phone ? toE164(q.phone, region, 'query.phone') : undefined;
      const rows = await deps.leads.consents.list(principalOf(req).tenantId, e164);
      if (q.format === 'json') return { data: rows };
      res.type('text/csv').setHeader('Content-Disposition', 'attachment; filename="consents.csv"');
      res.send(toCsv(rows, ['id', 'e164', 'method', 'consented_at', 'evidence', 'recorded_by', 'created_at'], ['method', 'evidence', 'recorded_by']));
    },
  });
}

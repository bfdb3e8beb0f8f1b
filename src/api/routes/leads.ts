/**
 * Leads (the first message discloses the AI; every call passes the gates). POST /leads: operator JWT or the service key (Bearer or X-Api-Key).
 * 201 with the lead and its call ({status: dispatched|blocked|scheduled|failed, …}); a lead for the same number
 * within LEAD_DUPLICATE_WINDOW_SECONDS answers 200 with duplicate: true and the existing lead (no second call).
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { notFound } from '../../errors.js';
import { leadView } from '../../leads/service.js';

const LeadBody = z.strictObject({
  name: z.string().trim().min(1).max(200),
  phone: z.string().min(3).max(40),
  source: z.string().trim().min(1).max(100),
  domain: z.string().trim().min(1).max(100),
  /** IANA zone of the callee; default: from the number's country */
  timezone: z.string().min(1).max(64).optional(),
  agent_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/).optional(),
});

const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** cursor: next_cursor of the previous page */
  cursor: z.string().regex(/^[^|]{1,40}\|lead_[0-9a-f]{24}$/).optional(),
});
const IdParam = z.object({ id: z.string().min(1).max(64) });

export function leadRoutes(t: RouteTable, deps: AppDeps): void {
  t.add({
    method: 'post', path: '/leads', tag: 'leads', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: LeadBody,
    summary: 'Create a lead: phone normalised to E.164 (DEFAULT_PHONE_REGION for national numbers), a conversation opening with the '
      + "agent's AI disclosure, and an outbound call through the DND and calling-hours gates (TRAI 09:00-21:00 callee time). "
      + "A gated call is not dialed: call.status 'blocked' (reason dnd) or 'scheduled' (scheduled_for = next window, dialed then).",
    responses: { 201: 'lead created; see call.status', 200: 'duplicate lead within the window: the existing lead, duplicate: true', 404: 'unknown agent_id' },
    handler: async (req, res) => {
      const body = bodyOf(req, LeadBody);
      const p = principalOf(req);
      const { lead, duplicate } = await deps.leads.leads.create({ tenantId: p.tenantId, sub: p.sub }, body);
      res.status(duplicate ? 200 : 201).json({ ...lead, duplicate });
    },
  });
  t.add({
    method: 'get', path: '/leads', tag: 'leads', auth: { kind: 'auth', role: 'operator', apiKey: true }, query: ListQuery,
    summary: "List the tenant's leads, newest first (cursor pagination).",
    handler: async (req) => {
      const q = parse(ListQuery, req.query, 'query');
      const before = q.cursor ? { at: q.cursor.split('|')[0], id: q.cursor.split('|')[1] } : undefined;
      const rows = await deps.leads.leads.repo.list(principalOf(req).tenantId, q.limit, before);
      const last = rows.at(-1);
      return { data: rows.map(leadView), next_cursor: rows.length === q.limit && last ? `${last.created_at}|${last.id}` : null };
    },
  });
  t.add({
    method: 'get', path: '/leads/:id', tag: 'leads', auth: { kind: 'auth', role: 'operator', apiKey: true },
    summary: 'One lead with its call outcome.',
    handler: async (req) => {
      const { id } = parse(IdParam, req.params, 'params');
      const lead = await deps.leads.leads.repo.get(principalOf(req).tenantId, id);
      if (!lead) throw notFound('lead');
      return leadView(lead);
    },
  });
}

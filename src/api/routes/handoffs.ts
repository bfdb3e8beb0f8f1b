/**
 * Handoffs: operator JWT or service key for every route (the contract leaves GET's auth open; an
 * operator console reads and acts with the same credential). States: waiting -> accepted -> resolved; 409
 * conflict on any other move, with the current handoff_state in the body. Service keys act as their key id.
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';

const ListQuery = z.strictObject({
  handoff_state: z.enum(['waiting', 'accepted', 'resolved']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const IdParam = z.object({ id: z.string().min(1).max(64) });
const ReplyBody = z.strictObject({ text: z.string().trim().min(1).max(4000) });
const OPERATOR = { kind: 'auth', role: 'operator', apiKey: true } as const;

export function handoffRoutes(t: RouteTable, deps: AppDeps): void {
  const h = deps.handoffs;
  t.add({
    method: 'get', path: '/handoffs', tag: 'handoffs', auth: OPERATOR, query: ListQuery,
    summary: 'Conversations handed to a human. Default: open ones (waiting, accepted); handoff_state filters (also resolved).',
    handler: async (req) => {
      const q = parse(ListQuery, req.query, 'query');
      return { data: await h.list(principalOf(req).tenantId, q.handoff_state, q.limit) };
    },
  });
  t.add({
    method: 'get', path: '/handoffs/:id', tag: 'handoffs', auth: OPERATOR,
    summary: 'One handoff with its history (who moved it, when).',
    handler: async (req) => h.get(principalOf(req).tenantId, parse(IdParam, req.params, 'params').id),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/accept', tag: 'handoffs', auth: OPERATOR,
    summary: 'waiting -> accepted by the caller. Exactly one of several simultaneous accepts wins; the others get 409.',
    responses: { 200: 'accepted', 409: 'not waiting (already accepted or resolved)' },
    handler: async (req) => h.accept(principalOf(req), parse(IdParam, req.params, 'params').id),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/reply', tag: 'handoffs', auth: OPERATOR, body: ReplyBody,
    summary: "The accepting operator's message: appended to the conversation and, for a call, published on its live stream (transcript, speaker operator).",
    responses: { 200: 'appended', 409: 'not accepted, or accepted by another operator' },
    handler: async (req) => h.reply(principalOf(req), parse(IdParam, req.params, 'params').id, bodyOf(req, ReplyBody).text),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/resolve', tag: 'handoffs', auth: OPERATOR,
    summary: 'accepted -> resolved (conversation closed), by the accepting operator or an admin.',
    responses: { 200: 'resolved', 409: 'not accepted, or accepted by another operator' },
    handler: async (req) => h.resolve(principalOf(req), parse(IdParam, req.params, 'params').id),
  });
}

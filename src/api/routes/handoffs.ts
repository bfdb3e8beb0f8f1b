/**
 * Handoffs: operator JWT or service key for every route (the contract leaves GET's auth open; an
 * operator console reads and acts with the same credential). States: waiting -> with_operator -> resolved
 * (then the agent again, or closed); 409 conflict on any other move, with the current handoff_state in the body. Service keys act as their key id.
 */
import { z } from 'zod';
import { parse } from '../validate.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { getHandoffSettings, putHandoffSettings } from '../../handoffs/settings.js';
import { BROWSER_FORMATS } from '../../carriers/browser/index.js';
import { OPERATOR_TOKEN_TTL_SECONDS } from '../../calls/engine.js';

const ListQuery = z.strictObject({
  handoff_state: z.enum(['waiting', 'with_operator', 'resolved']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
const IdParam = z.object({ id: z.string().min(1).max(64) });
const ReplyBody = z.strictObject({ text: z.string().trim().min(1).max(4000) });
/** After resolving: the agent answers the next turn again ('agent'), or the conversation closes ('close', the default). */
const ResolveBody = z.strictObject({ then: z.enum(['agent', 'close']).default('close') }).default({ then: 'close' });
const OPERATOR = { kind: 'auth', role: 'operator', apiKey: true } as const;
const ADMIN = { kind: 'auth', role: 'admin', apiKey: true } as const;
/** a person with a microphone: a user's JWT, never a service key */
const OPERATOR_USER = { kind: 'auth', role: 'operator' } as const;
const SettingsBody = z.strictObject({
  hold_seconds: z.number().int().min(0).max(3600).optional(),
  callback_delay_minutes: z.number().int().min(1).max(10080).optional(),
}).refine((b) => Object.keys(b).length > 0, { message: 'give hold_seconds and/or callback_delay_minutes' });

export function handoffRoutes(t: RouteTable, deps: AppDeps): void {
  const h = deps.handoffs;
  // before /handoffs/:id, which would take "settings" for an id
  t.add({
    method: 'get', path: '/handoffs/settings', tag: 'handoffs', auth: OPERATOR,
    summary: "The tenant's handoff settings for calls: hold_seconds (how long a caller who asked for a person waits on hold for an operator, "
      + 'default 60; 0: no hold, the call ends escalated) and callback_delay_minutes (when an accepted call-back is dialed, default 15).',
    handler: async (req) => getHandoffSettings(deps.db, principalOf(req).tenantId),
  });
  t.add({
    method: 'put', path: '/handoffs/settings', tag: 'handoffs', auth: ADMIN, body: SettingsBody,
    summary: 'Set hold_seconds (0-3600) and/or callback_delay_minutes (1-10080); fields left out keep their value. Applies to calls answered from then on.',
    handler: async (req) => { const p = principalOf(req); return putHandoffSettings(deps.db, p.tenantId, p.sub, bodyOf(req, SettingsBody)); },
  });
  t.add({
    method: 'get', path: '/handoffs', tag: 'handoffs', auth: OPERATOR, query: ListQuery,
    summary: 'Conversations handed to a human, longest waiting first, with queued_at, accepted_at, ended_at and resolution. '
      + 'Default: open ones (waiting, with_operator); handoff_state filters (also resolved).',
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
    summary: 'waiting -> with_operator (the caller). Exactly one of several simultaneous accepts wins; the others get 409. '
      + "From then on the visitor's turns reach this operator (the agent no longer answers); on a call, the agent stops speaking. A call that has ended answers 409.",
    responses: { 200: 'with_operator', 409: 'not waiting (already with an operator, or resolved)' },
    handler: async (req) => h.accept(principalOf(req), parse(IdParam, req.params, 'params').id),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/reply', tag: 'handoffs', auth: OPERATOR, body: ReplyBody,
    summary: "The accepting operator's message: appended to the conversation (the visitor's page shows it) and, for a call, spoken to the caller and published on its live stream (transcript, speaker operator). 409 once the call has ended.",
    responses: { 200: 'appended', 409: 'not with an operator, or with another operator' },
    handler: async (req) => h.reply(principalOf(req), parse(IdParam, req.params, 'params').id, bodyOf(req, ReplyBody).text),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/resolve', tag: 'handoffs', auth: OPERATOR, body: ResolveBody,
    summary: 'with_operator -> resolved, by the accepting operator or an admin. Optional body {then}: "agent" hands the conversation back '
      + 'to the agent (state active: it answers the next turn), "close" (default) closes it. The handoff says which in resolution. '
      + 'On a call: "agent" gives the call back to the agent; "close" ends it, ended_reason transferred (target operator:<user id>, the handoff times in the webhook).',
    responses: { 200: 'resolved', 409: 'not with an operator, or with another operator' },
    handler: async (req) => h.resolve(principalOf(req), parse(IdParam, req.params, 'params').id, bodyOf(req, ResolveBody).then),
  });
  t.add({
    method: 'post', path: '/handoffs/:id/audio', tag: 'handoffs', auth: OPERATOR_USER,
    summary: "The accepting operator joins a call's audio from the browser: returns {call_id, media_url, token, token_expires_in, media_formats}. "
      + 'Open the WebSocket media_url (/v1/media/operator on the instance that runs the call) and send {"event":"start","call_id","token","media_format"} '
      + 'within token_expires_in seconds; the single-use token travels in start, never in a URL. A user JWT only (no API key): the operator who accepted.',
    responses: { 200: 'the ticket', 403: 'not the operator who accepted the handoff', 404: 'no such handoff (of this tenant)',
      409: 'not a call, not with an operator, the call has ended, or the audio is joined already' },
    handler: async (req) => {
      const ticket = await h.audio(principalOf(req), parse(IdParam, req.params, 'params').id);
      return { ...ticket, token_expires_in: OPERATOR_TOKEN_TTL_SECONDS, media_formats: BROWSER_FORMATS };
    },
  });
  t.ws({
    path: '/media/operator', tag: 'handoffs', auth: { kind: 'public' },
    summary: "An operator's softphone on a call they took (POST /v1/handoffs/{id}/audio): the browser leg protocol of /v1/media/browser "
      + '(start with the ticket\'s call_id and token, then the microphone as media; out: started, the caller\'s audio as media, the call\'s live items). '
      + 'The caller hears the operator (mixed with any agent audio) and so does the recording; each operator turn is transcribed (speaker operator). '
      + 'Closes 1000 when the operator hands the call back or ends it, or the call ends; 1008 for a token that is not an operator ticket of this call '
      + '(a caller\'s media token is refused), a used or expired one, or a call this instance does not run, that has no operator, or whose operator '
      + 'audio is joined already; other codes as /v1/media/browser. Leaving the socket does not end the call: the operator can join again.',
    handle: (req, socket, head) => deps.callEngine.mediaUpgrade('operator', req, socket, head),
  });
}

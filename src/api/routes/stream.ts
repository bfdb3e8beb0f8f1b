/**
 * Live stream of a call: the WebSocket edge, its stored history (same items, same seqs) and transfer to a human.
 * Message and close-code reference: src/stream/protocol.ts.
 */
import { z } from 'zod';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { principalOf, resolveCredential } from '../auth_middleware.js';
import { parse } from '../validate.js';
import { ApiError } from '../../errors.js';
import { callStatusOf } from '../../calls/repo.js';
import { streamUpgradeHandler } from '../../stream/socket.js';
import { transferBody } from '../../stream/protocol.js';

const historyQuery = z.strictObject({
  after_seq: z.coerce.number().int().min(0).max(2 ** 31 - 1).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

export function streamRoutes(t: RouteTable, deps: AppDeps): void {
  t.ws({
    path: '/calls/:id/stream', tag: 'Stream', auth: { kind: 'auth', apiKey: true },
    summary: 'Live items of a call over WebSocket. Token: Authorization: Bearer <JWT or API key> or ?access_token=. '
      + 'Sends the stored items after ?after_seq= (default 0) first, then live ones, each once and in seq order: JSON text '
      + '{type: transcript|entity|escalation|status|transfer, call_id, seq, at, …}. A listener may send {"type":"transfer","target":"+E164"?}; '
      + 'failures come back as {type:"error", code, detail}. Close codes: 1000 call_ended (do not reconnect), 1001 server_shutdown, '
      + '4001 token_expired (JWT expired; reconnect with a fresh one) or token_revoked (the user was signed out, changed or deleted, or the API key revoked), 4008 slow_consumer (buffer bound passed; reconnect with after_seq). Refused upgrades answer problem+json: 401, 404 (unknown or '
      + "another tenant's call), 400 (bad after_seq). The server pings every 25 s and drops peers that do not answer.",
    handle: streamUpgradeHandler({
      log: deps.log, edge: deps.stream.edge, listeners: deps.metrics.streamListeners,
      authenticate: (token) => resolveCredential(deps, token, true),
      findCall: (tenantId, callId) => callStatusOf(deps.db, tenantId, callId),
      transfer: (tenantId, callId, req) => deps.calls.transfer(tenantId, callId, req),
      onUserRevoked: (userId, listener) => deps.revocation.onUserRevoked(userId, listener),
      onApiKeysRevoked: (listener) => deps.revocation.onApiKeysRevoked(listener),
    }),
  });

  t.add({
    method: 'get', path: '/calls/:id/events', tag: 'Stream', auth: { kind: 'auth', apiKey: true }, query: historyQuery,
    summary: 'Stored live items of a call with seq > after_seq, in seq order (at most limit). next_after_seq resumes the listing or the stream.',
    responses: { 200: '{ data: live items, next_after_seq }', 404: 'unknown call or another tenant\'s' },
    handler: async (req) => {
      const p = principalOf(req);
      const q = parse(historyQuery, req.query, 'query');
      const callId = String(req.params.id);
      if (!(await callStatusOf(deps.db, p.tenantId, callId))) throw new ApiError('not_found', 'call not found');
      const data = await deps.stream.store.afterForTenant(p.tenantId, callId, q.after_seq, q.limit);
      return { data, next_after_seq: data.length ? data[data.length - 1].seq : q.after_seq };
    },
  });

  t.add({
    method: 'post', path: '/calls/:id/transfer', tag: 'Stream', auth: { kind: 'auth', role: 'operator', apiKey: true }, body: transferBody,
    summary: 'Transfers a live call to a human (optional target E.164, default the agent\'s transfer_number, else HUMAN_TRANSFER_NUMBER): '
      + 'the conversation moves to the handoff state, the agent stops, listeners receive a \'transfer\' item (target, mode). '
      + 'mode "cold" puts the caller straight through; "warm" holds the caller (hold audio) while the human is called and hears '
      + '`summary` (at most 1000 characters, one line; default a summary of the call so far: who, what they want, budget, next step), '
      + 'then connects the two. Default mode: the agent\'s transfer_mode ("cold" unless set). The call ends transferred and its record '
      + 'and webhook say transfer {target, mode}. Same as the stream\'s transfer message.',
    responses: { 200: 'transfer accepted: {call_id, status, target, mode, live, conversation_id, handoff_state, seq}', 400: 'bad target, mode or summary (a summary with mode cold)',
      404: 'unknown call', 409: 'call has already ended' },
    handler: async (req) => {
      const p = principalOf(req);
      const body = bodyOf(req, transferBody);
      return deps.calls.transfer(p.tenantId, String(req.params.id), { ...body, by: p.sub });
    },
  });
}

/**
 * Calls: dispatch (with an agent_id or an inline agent), read, list, hang up, webhook delivery log, the tenant's webhook signing
 * secret (admins), and the signed recording links (public: the signature is the credential).
 * POST /v1/calls/:id/transfer is declared by the stream routes and calls deps.calls.transfer.
 */
import { z } from 'zod';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { principalOf } from '../auth_middleware.js';
import { hasRole } from '../../auth/tokens.js';
import { parse } from '../validate.js';
import { ApiError } from '../../errors.js';
import { DispatchBody, ListQuery } from '../../calls/dispatch_schema.js';
import { encodeCursor } from '../../calls/repo.js';
import { ENDED_REASONS } from '../../calls/types.js';

const CallIdParam = z.object({ id: z.string().regex(/^call_[0-9a-f]{24}$/, 'must be call_<24 hex>') });
const RecordingQuery = z.object({ expires: z.coerce.number().int(), sig: z.string().min(1).max(100) });
const callAuth = { kind: 'auth', apiKey: true } as const;
const AuditQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) });

export function callRoutes(t: RouteTable, deps: AppDeps): void {
  const callId = (params: unknown) => {
    const r = CallIdParam.safeParse(params);
    if (!r.success) throw new ApiError('not_found', 'call not found');
    return r.data.id;
  };

  t.add({
    method: 'post', path: '/calls/dispatch', tag: 'Calls', auth: callAuth, body: DispatchBody,
    summary: 'Dispatches an outbound AI call. agent_id of the tenant (default "default") or inline agent runtime '
      + 'settings. Returns the call with status dialing (stored with its queued and dialing status items: it is '
      + 'dialed at once); it moves on to in_progress -> completed '
      + '(or no_answer, busy, failed, canceled). In simulator mode the magic numbers +1500555000[1-9] force outcomes. '
      + 'Gates, as for leads and campaigns: a number on the tenant\'s do-not-disturb list without a recorded consent is '
      + 'refused 422 dnd_blocked (gate "dnd"); outside 09:00-21:00 in every zone of the callee\'s country 422 '
      + 'outside_calling_hours (gate "calling_hours", next_window_at). Numbers that reach no one (the simulator\'s, '
      + '555-0100 to 555-0199, UK 07700 900xxx) have no calling hours. An admin (JWT or admin API key) may mark the call '
      + 'transactional {"transactional": {"reason": "…"}} where regulation allows: it lifts both gates, and who marked it, '
      + 'why and when are stored on the call (compliance) and in GET /v1/compliance/audit.',
    responses: {
      201: 'the created call', 400: 'validation_failed', 403: 'transactional mark without the admin role', 404: 'unknown agent_id',
      422: 'dnd_blocked or outside_calling_hours (gate says which)', 429: 'concurrency_limited',
    },
    handler: async (req, res) => {
      const p = principalOf(req);
      const body = bodyOf(req, DispatchBody);
      if (body.transactional && !hasRole(p, 'admin')) {
        throw new ApiError('forbidden', 'marking a call transactional (past the do-not-disturb and calling-hours gates) needs the admin role: an admin JWT or an admin API key');
      }
      const call = await deps.calls.dispatch(p.tenantId, body, { at: deps.calls.clock(), by: { sub: p.sub, kind: p.kind } });
      res.status(201).location(`${deps.config.publicBaseUrl}/calls/${call.id}`).json(call);
    },
  });

  t.add({
    method: 'get', path: '/compliance/audit', tag: 'Calls', auth: { kind: 'auth', role: 'admin' }, query: AuditQuery,
    summary: 'Audit of calls marked transactional (placed past the do-not-disturb and calling-hours gates): call_id, the '
      + 'number as its SHA-256 hex, the reason given, who marked it (actor, actor_kind user|api_key), the gates it lifted and '
      + 'when; newest first. It outlives the call and an erasure of the callee (the proof the exempt call was lawful).',
    responses: { 200: '{ data: audit records }' },
    handler: async (req) => ({ data: await deps.calls.complianceAudit(principalOf(req).tenantId, parse(AuditQuery, req.query, 'query').limit) }),
  });

  t.add({
    method: 'get', path: '/calls', tag: 'Calls', auth: callAuth, query: ListQuery,
    summary: "The tenant's calls, newest first. Filters: status, agent_id, created_after/created_before (ISO 8601). "
      + 'Pagination: limit (1-200, default 50) with cursor=next_cursor of the previous page, or offset.',
    responses: { 200: '{ data: calls, next_cursor }' },
    handler: async (req) => {
      const p = principalOf(req);
      const q = parse(ListQuery, req.query, 'query');
      let out;
      try { out = await deps.calls.list(p.tenantId, q); } catch (err) {
        if (err instanceof RangeError) throw new ApiError('validation_failed', 'invalid cursor', { fields: [{ path: 'query.cursor', message: 'invalid cursor' }] });
        throw err;
      }
      const last = out.rows.length === q.limit ? out.rows[out.rows.length - 1] : undefined;
      return { data: out.data, next_cursor: last ? encodeCursor(last) : null };
    },
  });

  t.add({
    method: 'get', path: '/calls/:id', tag: 'Calls', auth: callAuth,
    summary: 'One call with its lifecycle transitions (from, to, reason, at), and once it ended its summary: a few sentences on who the '
      + 'caller is, what they want, their budget, the next step (a visit said booked only when the calendar booking succeeded, a call-back, '
      + 'an opt-out) and the questions left open (null before the end). '
      + 'summary_source says who wrote the summary: "model" (the dialog model, when one is configured and answered within SUMMARY_TIMEOUT_MS) '
      + 'or "fields" (built from extracted_data; also the model\'s fallback). '
      + `ended_reason: one of ${ENDED_REASONS.join(', ')}; what each means: components.schemas.EndedReason. `
      + 'transfer: {target, mode} when the call ended transferred to a number (mode cold, or warm: the human heard the summary first), else null.',
    responses: { 200: 'the call', 404: 'unknown call or another tenant\'s' },
    handler: async (req) => deps.calls.get(principalOf(req).tenantId, callId(req.params), true),
  });

  t.add({
    method: 'post', path: '/calls/:id/hangup', tag: 'Calls', auth: callAuth,
    summary: 'Hangs up: a live call ends as completed (ended_reason hangup_api), one not yet answered as canceled.',
    responses: { 200: 'the call', 404: 'unknown call', 409: 'call has already ended' },
    handler: async (req) => deps.calls.hangup(principalOf(req).tenantId, callId(req.params)),
  });

  t.add({
    method: 'get', path: '/calls/:id/webhooks', tag: 'Calls', auth: callAuth,
    summary: 'Delivery log of the call\'s webhooks: webhook_id (the webhook-id header, the same on every retry), state '
      + '(pending|delivered|failed), and every attempt with status_code, error and time.',
    responses: { 200: '{ data: webhooks }', 404: 'unknown call' },
    handler: async (req) => {
      const p = principalOf(req);
      const id = callId(req.params);
      await deps.calls.get(p.tenantId, id);
      return { data: await deps.callEngine.outbox.log(p.tenantId, id) };
    },
  });

  t.add({
    method: 'get', path: '/webhooks/secret', tag: 'Calls', auth: { kind: 'auth', role: 'admin' },
    summary: "The tenant's Standard Webhooks signing secret (whsec_…) for verifying call.completed (webhook-id, "
      + 'webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>).',
    responses: { 200: '{ secret, scheme }' },
    handler: async (req) => ({ secret: await deps.callEngine.secrets.forTenant(principalOf(req).tenantId), scheme: 'standard-webhooks-v1' }),
  });

  t.add({
    method: 'get', path: '/recordings/:file', tag: 'Calls', auth: { kind: 'public' },
    summary: 'The two-channel WAV recording (caller, agent) of a call, through the signed expiring link given as recording_url '
      + '(/v1/recordings/<call_id>.wav?expires=&sig=). 403 when the signature is wrong or expired.',
    responses: { 200: 'audio/wav', 403: 'bad or expired signature', 404: 'no recording' },
    handler: async (req, res) => {
      const m = /^(call_[0-9a-f]{24})\.wav$/.exec(String(req.params.file));
      if (!m) throw new ApiError('not_found', 'recording not found');
      const q = RecordingQuery.safeParse(req.query);
      if (!q.success || !deps.callEngine.signer.verify(m[1], q.data.expires, q.data.sig)) {
        throw new ApiError('forbidden', 'the recording link is invalid or has expired');
      }
      const wav = await deps.callEngine.recordingFor(m[1]);
      if (!wav) throw new ApiError('not_found', 'recording not found');
      res.status(200).type('audio/wav').setHeader('cache-control', 'private, max-age=300');
      res.end(wav);
    },
  });
}

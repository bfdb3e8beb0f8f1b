/**
 * Inbound webhooks (public): POST /v1/webhooks/crm and POST /v1/webhooks/calendar.
 * Envelope: {id (event id, idempotency key), type, tenant_id, data}. With SERVICE_WEBHOOK_SECRET set, every
 * request must carry X-Signature (see src/inbound/signature.ts); without it, anyone can post (the spec makes
 * HMAC optional), so production sets the secret.
 */
import { ApiError } from '../../errors.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { Envelope, processEvent, type Source } from '../../inbound/events.js';
import { SIGNATURE_HEADER, verify } from '../../inbound/signature.js';

const SCHEME = 'When SERVICE_WEBHOOK_SECRET is set: header X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, timestamp within 300 s; otherwise 401.';

export function inboundRoutes(t: RouteTable, deps: AppDeps): void {
  const add = (source: Source, summary: string) => t.add({
    method: 'post', path: `/webhooks/${source}`, tag: 'webhooks', auth: { kind: 'public' }, body: Envelope,
    summary: `${summary} Body {id, type, tenant_id, data}; a redelivered id returns 200 with duplicate: true and no effect. ${SCHEME}`,
    responses: { 200: 'processed (or duplicate)', 401: 'bad or stale signature' },
    // the signature is checked before the body is validated: an unsigned request learns nothing about the schema
    pre: [(req, _res, next) => {
      const secret = deps.config.SERVICE_WEBHOOK_SECRET;
      if (secret) {
        const header = req.headers[SIGNATURE_HEADER];
        const v = verify(typeof header === 'string' ? header : undefined, req.rawBody, secret, Math.floor(Date.now() / 1000), deps.config.INBOUND_WEBHOOK_TOLERANCE_SECONDS);
        if (!v.ok) { next(new ApiError('unauthenticated', v.reason)); return; }
      }
      next();
    }],
    handler: async (req) => {
      const event = bodyOf(req, Envelope);
      const r = await processEvent(deps.db, source, event, deps.inbound?.addToDnd);
      return { received: true, ...r };
    },
  });
  add('crm', 'CRM events: contact.opted_out {phone}, or lead.updated with data.opted_out/dnd true, add the number to the tenant\'s do-not-disturb registry; other types are recorded.');
  add('calendar', 'Calendar events: booking.created / booking.cancelled {booking_id, call_id?, lead_id?, phone?, start?} are stored against the call or lead (calendar_bookings); other types are recorded.');
}

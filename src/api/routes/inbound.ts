/**
 * Inbound webhooks (public, signed): POST /v1/webhooks/crm and POST /v1/webhooks/calendar, and the admin's
 * per-tenant inbound secrets. Who may post (config INBOUND_WEBHOOKS, src/inbound/README.md):
 *  - signed with a tenant's inbound secret (X-Signature key=<id>): the event is that tenant's; a body naming
 *    another tenant is 403;
 *  - signed with the deployment-wide SERVICE_WEBHOOK_SECRET: trusted for every tenant, the body names it;
 *  - unsigned: only when INBOUND_WEBHOOKS=unsigned (the simulator's default without SERVICE_WEBHOOK_SECRET; live
 *    mode needs it said explicitly), the body names the tenant. Otherwise 401.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.js';
import { principalOf } from '../auth_middleware.js';
import { bodyOf, type RouteTable } from '../route_table.js';
import type { AppDeps } from '../deps.js';
import { InboundBody, processEvent, type Source } from '../../inbound/events.js';
import { SIGNATURE_HEADER, parseSignature, verifyParsed } from '../../inbound/signature.js';
import { InboundSecrets } from '../../inbound/secrets.js';

const SCHEME = 'Signed: header X-Signature: t=<unix seconds>[,key=<inbound secret id>],v1=<hex HMAC-SHA256 of "<t>.<raw body>">, timestamp '
  + 'within INBOUND_WEBHOOK_TOLERANCE_SECONDS (300). With key= (a tenant\'s inbound secret) the event is that tenant\'s and tenant_id may be '
  + 'left out; without it the deployment\'s SERVICE_WEBHOOK_SECRET signs and tenant_id names the tenant. Unsigned requests are accepted only '
  + 'with INBOUND_WEBHOOKS=unsigned; otherwise 401.';

const SecretBody = z.strictObject({ name: z.string().trim().min(1).max(100) });

/** The tenant the request's credential names (a tenant secret), null for the deployment secret or none. */
const signedTenant = new WeakMap<Request, string | null>();

export function inboundRoutes(t: RouteTable, deps: AppDeps): void {
  const secrets = new InboundSecrets(deps.db, () => deps.config.jwtSecret);

  /** Checks the request's signature; resolves with the tenant its credential names (null: the body may name it). */
  async function authorise(req: Request): Promise<string | null> {
    const header = req.headers[SIGNATURE_HEADER];
    const parsed = parseSignature(typeof header === 'string' ? header : undefined);
    const deploymentSecret = deps.config.SERVICE_WEBHOOK_SECRET;
    const check = (secret: string) => {
      const v = verifyParsed(parsed as Exclude<typeof parsed, { reason: string }>, req.rawBody, secret, Math.floor(Date.now() / 1000), deps.config.INBOUND_WEBHOOK_TOLERANCE_SECONDS);
      if (!v.ok) throw new ApiError('unauthenticated', v.reason);
    };
    if (!('reason' in parsed) && parsed.key) {
      const tenant = await secrets.tenantOf(parsed.key);
      if (!tenant) throw new ApiError('unauthenticated', 'unknown or revoked inbound secret (key=)');
      check(secrets.secretOf(parsed.key));
      return tenant;
    }
    if (deploymentSecret && (header !== undefined || deps.config.inboundWebhooks === 'signed')) {
      if ('reason' in parsed) throw new ApiError('unauthenticated', parsed.reason);
      check(deploymentSecret);
      return null;
    }
    if (deps.config.inboundWebhooks === 'unsigned') return null;
    throw new ApiError('unauthenticated', 'inbound webhooks must be signed: X-Signature with key=<inbound secret id> (POST /v1/inbound-secrets)'
      + (deploymentSecret ? ' or the deployment\'s SERVICE_WEBHOOK_SECRET' : ''));
  }

  const add = (source: Source, summary: string) => t.add({
    method: 'post', path: `/webhooks/${source}`, tag: 'webhooks', auth: { kind: 'public' }, body: InboundBody,
    summary: `${summary} Body {id, type, tenant_id, data}; a redelivered id returns 200 with duplicate: true and no effect. ${SCHEME}`,
    responses: { 200: 'processed (or duplicate)', 401: 'missing, bad or stale signature', 403: 'the body names another tenant than the signing secret' },
    // the signature is checked before the body is validated: an unsigned request learns nothing about the schema
    pre: [(req, _res, next) => { authorise(req).then((tenant) => { signedTenant.set(req, tenant); next(); }, next); }],
    handler: async (req) => {
      const body = bodyOf(req, InboundBody);
      const fromCredential = signedTenant.get(req) ?? null;
      if (fromCredential && body.tenant_id !== undefined && body.tenant_id !== fromCredential) {
        throw new ApiError('forbidden', 'tenant_id names another tenant than the inbound secret that signed the request');
      }
      const tenantId = fromCredential ?? body.tenant_id;
      if (!tenantId) {
        throw new ApiError('validation_failed', 'tenant_id is required unless a tenant\'s inbound secret signed the request (key=)', { fields: [{ path: 'body.tenant_id', message: 'required' }] });
      }
      const r = await processEvent(deps.db, source, { ...body, tenant_id: tenantId }, deps.inbound?.addToDnd);
      return { received: true, ...r };
    },
  });
  add('crm', 'CRM events: contact.opted_out {phone}, or lead.updated with data.opted_out/dnd true, add the number to the tenant\'s do-not-disturb registry; other types are recorded.');
  add('calendar', 'Calendar events: booking.created / booking.cancelled {booking_id, call_id?, lead_id?, phone?, start?} are stored against the call or lead (calendar_bookings); other types are recorded.');

  t.add({
    method: 'get', path: '/inbound-secrets', tag: 'webhooks', auth: { kind: 'auth', role: 'admin' },
    summary: "List the tenant's inbound webhook secrets (id, name, created_at, revoked_at; never the secrets).",
    handler: async (req) => ({ data: await secrets.list(principalOf(req).tenantId) }),
  });
  t.add({
    method: 'post', path: '/inbound-secrets', tag: 'webhooks', auth: { kind: 'auth', role: 'admin' }, body: SecretBody,
    summary: 'Create an inbound webhook secret of this tenant. The secret is shown once, in this response: the sender signs with it and names its id '
      + '(X-Signature: t=…,key=<id>,v1=…), and the event is this tenant\'s. To rotate, create a new one, move the sender, delete the old one.',
    responses: { 201: '{id, name, created_at, revoked_at, secret}' },
    handler: async (req, res) => {
      res.status(201).json(await secrets.create(principalOf(req).tenantId, bodyOf(req, SecretBody).name));
    },
  });
  t.add({
    method: 'delete', path: '/inbound-secrets/:id', tag: 'webhooks', auth: { kind: 'auth', role: 'admin' },
    summary: 'Revoke an inbound webhook secret: requests signed with it are refused (401) from now on.', responses: { 204: 'revoked', 404: 'unknown or already revoked' },
    handler: async (req, res) => {
      if (!(await secrets.revoke(principalOf(req).tenantId, String(req.params.id)))) throw notFound('inbound secret');
      res.status(204).end();
    },
  });
}

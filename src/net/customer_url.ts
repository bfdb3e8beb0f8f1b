/**
 * The request-body field for a URL we will later call (webhook_url): http(s), no user:password@, and no host
 * the address policy refuses when that is known without a lookup (an IP literal in any spelling, localhost).
 * A refused address is its own error code (address_not_allowed, see src/api/validate.ts), so a client can tell
 * it from a malformed URL.
 *
 * The policy is the process's (WEBHOOK_ALLOWED_CIDRS, set once at start-up by buildServices): request schemas
 * are module constants shared by the routes and the OpenAPI document, with no request context to carry it.
 */
import { z } from 'zod';
import { AddressPolicy } from './address_policy.js';

let processPolicy = new AddressPolicy();

/** Sets the policy request validation uses (start-up). */
export function setOutboundPolicy(policy: AddressPolicy): void { processPolicy = policy; }
export const outboundPolicy = (): AddressPolicy => processPolicy;

export const ADDRESS_NOT_ALLOWED = 'address_not_allowed';

export const customerUrl = (maxLength: number) => z.string().max(maxLength).superRefine((s, ctx) => {
  let u: URL;
  try { u = new URL(s); } catch { ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' }); return; }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
    ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
    return;
  }
  if (u.username || u.password) { ctx.addIssue({ code: 'custom', message: 'must not carry a user name or password' }); return; }
  const range = processPolicy.hostRefusal(u.hostname);
  if (range) {
    ctx.addIssue({ code: 'custom', message: `${u.hostname} is not a public address (${range}); see WEBHOOK_ALLOWED_CIDRS`,
      params: { code: ADDRESS_NOT_ALLOWED } });
  }
});

/**
 * Exotel signs none of its requests, so every hook carries a proof of our own (README.md, "Hooks"):
 * - the status callback, whose URL we give per call: `key`, an HMAC of the call id under the service secret;
 * - the flow's applet hooks (stream, next, dial), whose URLs the operator types into the flow once: the deployment
 *   secret EXOTEL_HOOK_SECRET, as `?secret=` in the URL or as the password of basic-auth credentials in it
 *   (`https://exotel:<secret>@host/…`, which Exotel sends as Authorization: Basic).
 * Both are compared in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierRequest } from '../contract.js';

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The status callback's key of one call. */
export const statusKey = (serviceSecret: string, callId: string): string =>
  createHmac('sha256', serviceSecret).update(`exotel-status-callback:${callId}`).digest('base64url').slice(0, 32);

export const verifyStatusKey = (serviceSecret: string, callId: string, key: string | null): boolean =>
  Boolean(callId) && same(key ?? '', statusKey(serviceSecret, callId));

/** Whether an applet hook carries the deployment secret (query `secret`, or the basic-auth password). */
export function verifyHookSecret(secret: string, req: CarrierRequest): boolean {
  const inQuery = new URL(req.url).searchParams.get('secret');
  if (inQuery !== null) return same(inQuery, secret);
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(String(req.headers.authorization ?? ''));
  if (!m) return false;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && same(decoded.slice(colon + 1), secret);
}

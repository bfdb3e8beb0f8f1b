/**
 * Inbound webhook signatures:
 *   X-Signature: t=<unix seconds>[,key=<inbound secret id>],v1=<hex HMAC-SHA256(secret, "<t>.<raw body bytes>")>
 * `key=` names a tenant's inbound secret (secrets.ts), whose tenant the event then belongs to; without it the
 * deployment-wide SERVICE_WEBHOOK_SECRET signs. Several v1= entries may be given (secret rotation on the sender's
 * side); one match suffices. The timestamp must be within ±tolerance seconds of our clock (default 300), so a
 * captured request cannot be replayed later; within the window a redelivery is caught by the event id
 * (idempotency table). Comparison is constant-time over the 32-byte digests.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-signature';

export function sign(secret: string, rawBody: Buffer | string, t: number, key?: string): string {
  const mac = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return key ? `t=${t},key=${key},v1=${mac}` : `t=${t},v1=${mac}`;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

export interface ParsedSignature { t: number; key?: string; sigs: string[] }

/** The header's parts, or why it is not one. */
export function parseSignature(header: string | undefined): ParsedSignature | { reason: string } {
  if (!header) return { reason: 'missing X-Signature header' };
  let t: number | undefined, key: string | undefined;
  const sigs: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq).trim(), v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'key' && /^[A-Za-z0-9_]{1,64}$/.test(v)) key = v;
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) sigs.push(v.toLowerCase());
  }
  if (t === undefined || sigs.length === 0) return { reason: 'X-Signature must be "t=<unix seconds>,v1=<hex>" (with key=<inbound secret id> for a tenant\'s secret)' };
  return { t, key, sigs };
}

export function verifyParsed(p: ParsedSignature, rawBody: Buffer | undefined, secret: string, nowSeconds: number, toleranceSeconds: number): Verdict {
  if (Math.abs(nowSeconds - p.t) > toleranceSeconds) return { ok: false, reason: 'signature timestamp outside the allowed window' };
  const expected = createHmac('sha256', secret).update(`${p.t}.`).update(rawBody ?? Buffer.alloc(0)).digest();
  const match = p.sigs.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return match ? { ok: true } : { ok: false, reason: 'signature does not match' };
}

export function verify(header: string | undefined, rawBody: Buffer | undefined, secret: string, nowSeconds: number, toleranceSeconds: number): Verdict {
  const p = parseSignature(header);
  return 'reason' in p ? { ok: false, reason: p.reason } : verifyParsed(p, rawBody, secret, nowSeconds, toleranceSeconds);
}

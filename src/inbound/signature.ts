/**
 * Inbound webhook signatures (when SERVICE_WEBHOOK_SECRET is set):
 *   X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body bytes>")>
 * Several v1= entries may be given (secret rotation on the sender's side); one match suffices. The timestamp
 * must be within ±tolerance seconds of our clock (default 300), so a captured request cannot be replayed
 * later; within the window a redelivery is caught by the event id (idempotency table). Comparison is
 * constant-time over the 32-byte digests.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-signature';

export function sign(secret: string, rawBody: Buffer | string, t: number): string {
  const mac = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return `t=${t},v1=${mac}`;
}

export type Verdict = { ok: true } | { ok: false; reason: string };

export function verify(header: string | undefined, rawBody: Buffer | undefined, secret: string, nowSeconds: number, toleranceSeconds: number): Verdict {
  if (!header) return { ok: false, reason: 'missing X-Signature header' };
  let t: number | undefined;
  const sigs: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const k = part.slice(0, eq).trim(), v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/i.test(v)) sigs.push(v.toLowerCase());
  }
  if (t === undefined || sigs.length === 0) return { ok: false, reason: 'X-Signature must be "t=<unix seconds>,v1=<hex>"' };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, reason: 'signature timestamp outside the allowed window' };
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody ?? Buffer.alloc(0)).digest();
  const match = sigs.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
  return match ? { ok: true } : { ok: false, reason: 'signature does not match' };
}

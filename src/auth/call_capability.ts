/**
 * A capability for one call: a signed, expiring, single-use token that lets its bearer do one thing for that
 * call (attach the carrier's media stream). `<expires>.<nonce>.<HMAC-SHA256(key, purpose.callId.expires.nonce)>`,
 * the key derived from the service secret and the purpose, so a token for one purpose or call is worth nothing
 * for another. It travels as a carrier stream parameter (Twilio <Parameter>, start.customParameters): never in a
 * URL, where proxies and logs would keep it.
 *
 * Single use is enforced in this process's memory: a call's stream can attach only on the instance that runs the
 * call (and asked for the token), so that is the only place a second use could happen. Redeemed nonces are
 * forgotten once their token has expired anyway.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a token may wait for its use: the ring (60 s) and the wait for the stream (15 s), with room, s. */
export const CAPABILITY_TTL_SECONDS = 300;

export class CallCapabilities {
  readonly #key: Buffer;
  /** redeemed nonce -> its expiry (ms), in redemption order */
  readonly #used = new Map<string, number>();

  constructor(secret: string, readonly purpose: string) {
    this.#key = createHmac('sha256', secret).update(`call-capability:${purpose}`).digest();
  }

  issue(callId: string, nowMs = Date.now(), ttlSeconds = CAPABILITY_TTL_SECONDS): string {
    const expires = Math.floor(nowMs / 1000) + ttlSeconds;
    const nonce = randomBytes(12).toString('base64url');
    return `${expires}.${nonce}.${this.#sig(callId, expires, nonce)}`;
  }

  /** True once for a well-signed, unexpired token of this call; false for anything else (and every later try). */
  redeem(callId: string, token: unknown, nowMs = Date.now()): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const parts = token.split('.');
    if (parts.length !== 3) return false;
    const [exp, nonce, sig] = parts;
    const expires = Number(exp);
    if (!/^\d{1,12}$/.test(exp) || expires * 1000 < nowMs) return false;
    const want = Buffer.from(this.#sig(callId, expires, nonce));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return false;
    this.#forgetExpired(nowMs);
    if (this.#used.has(nonce)) return false;
    this.#used.set(nonce, expires * 1000);
    return true;
  }

  #sig(callId: string, expires: number, nonce: string): string {
    return createHmac('sha256', this.#key).update(`${this.purpose}.${callId}.${expires}.${nonce}`).digest('base64url');
  }

  #forgetExpired(nowMs: number): void {
    // Tokens share one lifetime, so redemption order is nearly expiry order: stop at the first live one.
    for (const [nonce, until] of this.#used) {
      if (until >= nowMs) break;
      this.#used.delete(nonce);
    }
  }
}

/**
 * Signed, expiring recording links: GET /v1/recordings/<call_id>.wav?expires=<unix s>&sig=<base64url HMAC-SHA256>.
 * The webhook receiver fetches them without a JWT; the signature covers the call id and the expiry, so a link
 * cannot be stretched or pointed at another call. Key: HMAC("recordings", the service's JWT secret).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Links stay valid for 7 days (s). */
export const RECORDING_LINK_TTL_SECONDS = 7 * 24 * 3600;

export class RecordingSigner {
  readonly #key: Buffer;
  constructor(secret: string) {
    this.#key = createHmac('sha256', secret).update('recordings').digest();
  }

  #sig(callId: string, expires: number): string {
    return createHmac('sha256', this.#key).update(`${callId}.${expires}`).digest('base64url');
  }

  url(publicBaseUrl: string, callId: string, nowMs = Date.now(), ttlSeconds = RECORDING_LINK_TTL_SECONDS): string {
    const expires = Math.floor(nowMs / 1000) + ttlSeconds;
    return `${publicBaseUrl}/recordings/${callId}.wav?expires=${expires}&sig=${this.#sig(callId, expires)}`;
  }

  verify(callId: string, expires: number, sig: string, nowMs = Date.now()): boolean {
    if (!Number.isInteger(expires) || expires * 1000 < nowMs) return false;
    const want = Buffer.from(this.#sig(callId, expires));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}

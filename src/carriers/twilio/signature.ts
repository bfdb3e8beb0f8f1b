/**
 * X-Twilio-Signature (README.md, "Signatures"): base64 HMAC-SHA1 keyed with the auth token over the exact URL Twilio
 * requested (query included) followed by every form field as name + value, names sorted (a repeated name: its
 * values deduplicated and sorted, each as name + value). Checked in constant time, with and without the scheme's
 * default port. A WebSocket upgrade is signed over its wss:// URL with no fields.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierRequest } from '../contract.js';

/** X-Twilio-Signature: base64 HMAC-SHA1(authToken, url + Σ sorted(name + value)). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string | string[]> = {}): string {
  let data = url;
  for (const k of Object.keys(params).sort()) {
    const v = params[k];
    if (Array.isArray(v)) for (const x of [...new Set(v)].sort()) data += k + x;
    else data += k + v;
  }
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

/** Constant-time check of a signature against the URL, with and without the scheme's default port (twilio-node). */
export function verifyTwilioSignature(authToken: string, url: string, signature: string | undefined, params: Record<string, string | string[]> = {}): boolean {
  if (!signature) return false;
  const got = Buffer.from(signature);
  const candidates = new Set([url]);
  try {
    const u = new URL(url);
    const defPort = u.protocol === 'wss:' || u.protocol === 'https:' ? '443' : '80';
    const withPort = `${u.hostname}:${defPort}`;
    if (url.includes(withPort)) candidates.add(url.replace(withPort, u.hostname));
    else if (!u.port) candidates.add(url.replace(u.host, withPort));
  } catch { /* the raw string is all we can sign */ }
  for (const c of candidates) {
    const want = Buffer.from(twilioSignature(authToken, c, params));
    if (want.length === got.length && timingSafeEqual(want, got)) return true;
  }
  return false;
}

/** The form fields of a callback: as signed (repeated names as lists) and as plain fields (first value). */
export function formOf(req: CarrierRequest): { signed: Record<string, string | string[]>; fields: Record<string, string> } {
  const signed: Record<string, string | string[]> = {};
  const fields: Record<string, string> = {};
  if (req.method !== 'POST') return { signed, fields };
  for (const [k, v] of new URLSearchParams(req.rawBody.toString('utf8'))) {
    const had = signed[k];
    signed[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
    fields[k] ??= v;
  }
  return { signed, fields };
}

/** The signature header's value (the first, if repeated). */
export const signatureHeader = (headers: CarrierRequest['headers']): string | undefined => {
  const sig = headers['x-twilio-signature'];
  return Array.isArray(sig) ? sig[0] : sig;
};

/**
 * Plivo request signatures, version 3 (X-Plivo-Signature-V3 + X-Plivo-Signature-V3-Nonce): base64
 * HMAC-SHA256(auth token, canonical URL + "." + nonce). The canonical URL follows plivo-node's v3Security exactly,
 * quirks included: the query is decoded and re-sorted as k=v&k2=v2; a POST with parameters gets "?" (and "."
 * after a non-empty query) and then every key+value, sorted; a GET merges its parameters into the query.
 * The header may hold several comma-separated signatures (one per token in rotation): any match is enough.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CarrierRequest } from '../contract.js';

type Params = Record<string, string | string[]>;

const sortedValues = (v: string | string[]) => (Array.isArray(v) ? [...v] : [v]).sort();

function splitUrl(url: string): { base: string; query: Record<string, string[]> } {
  const hash = url.indexOf('#');
  const noHash = hash < 0 ? url : url.slice(0, hash);
  const q = noHash.indexOf('?');
  const base = q < 0 ? noHash : noHash.slice(0, q);
  const query: Record<string, string[]> = {};
  if (q >= 0) for (const [k, v] of new URLSearchParams(noHash.slice(q + 1))) (query[k] ??= []).push(v);
  return { base, query };
}

function sortedQuery(params: Record<string, string[]>): string {
  return Object.keys(params).sort().flatMap((k) => [...params[k]].sort().map((v) => `${k}=${v}`)).join('&');
}

/** The string Plivo signs (before "." + nonce). */
export function plivoCanonicalUrl(method: 'GET' | 'POST', url: string, params: Params = {}): string {
  const { base, query } = splitUrl(url);
  if (method === 'GET') {
    for (const [k, v] of Object.entries(params)) (query[k] ??= []).push(...sortedValues(v));
    const qs = sortedQuery(query);
    return qs ? `${base}?${qs}` : base;
  }
  const keys = Object.keys(params);
  const qs = sortedQuery(query);
  let out = base;
  if (qs || keys.length) out += `?${qs}`;
  if (qs && keys.length) out += '.';
  for (const k of keys.sort()) for (const v of sortedValues(params[k])) out += k + v;
  return out;
}

export function plivoSignatureV3(authToken: string, method: 'GET' | 'POST', url: string, nonce: string, params: Params = {}): string {
  return createHmac('sha256', authToken).update(`${plivoCanonicalUrl(method, url, params)}.${nonce}`, 'utf8').digest('base64');
}

/** Constant-time check of X-Plivo-Signature-V3 (any of its comma-separated values) for this request. */
export function verifyPlivoSignatureV3(authToken: string, method: string, url: string, nonce: string | undefined,
  header: string | undefined, params: Params = {}): boolean {
  if (!nonce || !header || (method !== 'GET' && method !== 'POST')) return false;
  const want = Buffer.from(plivoSignatureV3(authToken, method, url, nonce, params));
  return header.split(',').some((s) => {
    const got = Buffer.from(s.trim());
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(',') : v);

/** Whether a callback carries a valid V3 signature over the URL we gave Plivo and its parameters. */
export function verifyPlivoRequest(authToken: string, req: CarrierRequest): boolean {
  const h = req.headers;
  return verifyPlivoSignatureV3(authToken, req.method.toUpperCase(), req.url, one(h['x-plivo-signature-v3-nonce']), one(h['x-plivo-signature-v3']), req.params);
}

/**
 * Requests to customer-supplied URLs under the address policy (address_policy.ts), checked on the address
 * actually connected to: the socket's DNS lookup is ours and refuses a name that resolves to any refused
 * address, so a name that answers differently on a second lookup (DNS rebinding) cannot slip past a check
 * made earlier. IP literals (which skip the lookup) are checked before connecting. Redirects are never
 * followed, at most `maxResponseBytes` of the answer are read, and one deadline covers connect, headers and
 * body: a slow-drip or endless answer is cut.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './address_policy.js';

/** The URL's host is, or resolves to, an address the policy refuses: final, retrying cannot help. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  readonly code = 'ERR_ADDRESS_REFUSED';
  constructor(readonly host: string, readonly address: string, readonly range: string) {
    super(address === host ? `${host} is a refused address (${range})` : `${host} resolves to a refused address ${address} (${range})`);
  }
}

/** How names are resolved: the system resolver (dns.lookup, as net.connect does) unless a test gives its own. */
export type Resolve = (hostname: string, options: LookupOptions & { all: true }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/** A lookup for net.connect that answers only when every address of the name is allowed. */
export function policyLookup(policy: AddressPolicy, resolve: Resolve = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    const opts = (typeof options === 'object' && options !== null ? options : {}) as LookupOptions;
    resolve(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      // Any refused answer refuses the name: a mix of public and private answers is how rebinding is tried.
      for (const a of addresses) {
        const range = policy.refusal(a.address);
        if (range) return callback(new RefusedAddressError(hostname, a.address, range), '', 0);
      }
      if (opts.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

export interface BoundedAnswer {
  status: number;
  /** the first bytes of the body (at most maxResponseBytes) */
  head: Buffer;
  /** the body went on past maxResponseBytes (the connection was then closed) */
  truncated: boolean;
}

export interface BoundedPostOptions {
  policy: AddressPolicy;
  headers: Record<string, string>;
  body: string;
  /** one deadline over connect, headers and body, ms */
  timeoutMs: number;
  maxResponseBytes: number;
  /** name resolution (default: the system resolver) */
  resolve?: Resolve;
}

/** The deadline passed: connect, headers or body took too long. */
export class DeadlineError extends Error { override name = 'TimeoutError'; }

/** POSTs `body` to `url`; resolves with the status and the start of the answer, rejects on refusal, deadline or network error. */
export function boundedPost(url: string, o: BoundedPostOptions): Promise<BoundedAnswer> {
  return new Promise((resolve, reject) => {
    let u: URL;
    try { u = new URL(url); } catch { reject(new Error('invalid URL')); return; }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') { reject(new Error(`unsupported scheme ${u.protocol}`)); return; }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const range = o.policy.refusal(host);
      if (range) { reject(new RefusedAddressError(host, host, range)); return; }
    }
    let settled = false;
    const finish = (err: Error | null, answer?: BoundedAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err); else resolve(answer!);
    };
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false = a connection of its own, so the lookup above runs for every delivery (no pooled socket
    // opened under an earlier answer) and nothing outlives the deadline.
    const req = send(u, {
      method: 'POST', agent: false, lookup: policyLookup(o.policy, o.resolve),
      headers: { ...o.headers, 'content-length': String(Buffer.byteLength(o.body)), connection: 'close' },
    });
    const timer = setTimeout(() => { finish(new DeadlineError(`no complete answer within ${o.timeoutMs} ms`)); req.destroy(); }, o.timeoutMs);
    req.once('error', (err) => finish(err));
    req.once('response', (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < o.maxResponseBytes) chunks.push(chunk.subarray(0, o.maxResponseBytes - size));
        size += chunk.length;
        if (size > o.maxResponseBytes) {
          finish(null, { status: res.statusCode ?? 0, head: Buffer.concat(chunks), truncated: true });
          req.destroy();
        }
      });
      res.once('end', () => finish(null, { status: res.statusCode ?? 0, head: Buffer.concat(chunks), truncated: false }));
      res.once('error', (err) => finish(err));
      res.once('aborted', () => finish(new Error('the answer was cut off')));
    });
    req.end(o.body);
  });
}

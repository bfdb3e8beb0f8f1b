/**
 * Which addresses a request to a customer-supplied URL (webhook_url) may connect to: public unicast only.
 * The special ranges come from ipaddr.js (IANA special-purpose registries), never from a table of our own.
 * Refused: every IPv4 range ipaddr.js names (loopback, private, carrier-grade NAT, link-local with the cloud
 * metadata address 169.254.169.254, multicast, broadcast, unspecified, reserved, documentation, benchmarking),
 * and for IPv6 everything outside 2000::/3 (global unicast) plus the named ranges inside it. IPv6 forms that
 * embed an IPv4 address (mapped, translated, NAT64, 6to4, Teredo) are refused whatever they embed: a public
 * receiver is never addressed that way, and the embedded address may be any of the above.
 * WEBHOOK_ALLOWED_CIDRS opens exceptions (local development, tests: 127.0.0.1/32).
 */
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** IANA's global unicast block; the rest of the IPv6 space is unassigned or special. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The range an address belongs to: 'public' for public unicast, else the name of the refused range
 * (ipaddr.js's names, e.g. loopback, private, linkLocal, uniqueLocal, ipv4Mapped; 'unassigned' for IPv6
 * outside 2000::/3).
 */
export function rangeOf(addr: Address): string {
  const range = addr.range();
  if (range !== 'unicast') return range;
  if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return 'unassigned';
  return 'public';
}

/**
 * Parses an IP literal in any spelling ipaddr.js knows (127.1, 2130706433, 0x7f000001, 0177.0.0.1, [::1],
 * fe80::1%eth0); undefined for a name.
 */
export function parseAddress(text: string): Address | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : undefined;
}

/** Names that mean this machine by definition (RFC 6761), whatever a resolver says. */
const LOOPBACK_NAME = /^(.+\.)?localhost\.?$/i;

export class AddressPolicy {
  readonly #allowed: Cidr[];

  /** `allowedCidrs`: exceptions, e.g. ['127.0.0.1/32']; throws on a malformed CIDR. */
  constructor(allowedCidrs: readonly string[] = []) {
    this.#allowed = allowedCidrs.map((c) => ipaddr.parseCIDR(c.trim()));
  }

  /** Parses WEBHOOK_ALLOWED_CIDRS ("a/n, b/m"); throws naming the bad entry. */
  static fromList(list: string | undefined): AddressPolicy {
    const items = (list ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const bad = items.find((c) => !ipaddr.isValidCIDR(c));
    if (bad !== undefined) throw new Error(`not a CIDR: ${bad}`);
    return new AddressPolicy(items);
  }

  get exceptions(): string[] { return this.#allowed.map(([a, n]) => `${a.toString()}/${n}`); }

  /** The refused range of an address (any spelling), or undefined when it may be connected to. */
  refusal(address: string | Address): string | undefined {
    const addr = typeof address === 'string' ? parseAddress(address) : address;
    if (!addr) return 'not an IP address';
    if (this.#isException(addr)) return undefined;
    const range = rangeOf(addr);
    return range === 'public' ? undefined : range;
  }

  /**
   * The refusal for a URL's host known before any lookup: an IP literal, or a name that is loopback by
   * definition (localhost). Other names are checked on the address they resolve to, at connect time.
   */
  hostRefusal(hostname: string): string | undefined {
    if (LOOPBACK_NAME.test(hostname)) return this.refusal('127.0.0.1') && this.refusal('::1') ? 'loopback' : undefined;
    const addr = parseAddress(hostname);
    return addr ? this.refusal(addr) : undefined;
  }

  #isException(addr: Address): boolean {
    const forms: Address[] = [addr];
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) forms.push((addr as ipaddr.IPv6).toIPv4Address());
    return forms.some((a) => this.#allowed.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits)));
  }
}

/**
 * Which destinations a webhook may reach (SSRF protection). Address classes come from ipaddr.js: only its
 * `unicast` class (public, globally routed) is acceptable; private, loopback, link-local, CGNAT, multicast,
 * unique-local, reserved, documentation, NAT64/6to4/Teredo (which embed IPv4) and the rest are refused.
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries (a dual-stack socket reports
 * IPv4 peers that way). Every other IPv6 address must lie in the global unicast space 2000::/3 (RFC 4291,
 * IANA's only allocation for global addresses) and outside every special-purpose block: IPv4-compatible
 * `::/96` (`::127.0.0.1`, deprecated but still routed to the embedded IPv4 by some stacks) and anything else
 * outside 2000::/3 are refused whatever they embed. Pure functions.
 */
import ipaddr from 'ipaddr.js';

/** The ipaddr.js class of an address literal, or null when `text` is not an IP address. */
export function addressClass(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const canonical = bare.includes(':') ? canonicalIPv6(bare) : bare;
  if (canonical === null || !ipaddr.isValid(canonical)) return null;
  const addr = ipaddr.parse(canonical);
  if (addr.kind() === 'ipv4') return addr.range();
  const v6 = addr as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range();
  const range = v6.range();
  if (range !== 'unicast') return range;
  if (v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return v6.match(GLOBAL_UNICAST) ? 'unicast' : 'nonGlobal';
}

/**
 * The WHATWG URL parser's hex form of an IPv6 literal (`::127.0.0.1` → `::7f00:1`), as fetch and our URL
 * checks see it. ipaddr.js alone would read any dotted tail as IPv4-mapped (`::127.0.0.1` → `::ffff:7f00:1`),
 * which hides the IPv4-compatible form; the hex form it parses faithfully.
 */
function canonicalIPv6(text: string): string | null {
  try {
    const host = new URL(`http://[${text}]/`).hostname;
    return host.slice(1, -1);
  } catch {
    return null;
  }
}

/** `::/96` less `::` and `::1` (ipaddr.js names those): the deprecated IPv4-compatible form. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/** Why an address may not be connected to, or null when it is a public unicast address. */
export function addressRefusal(text: string): string | null {
  const cls = addressClass(text);
  if (cls === null) return `${text} is not an IP address`;
  return cls === 'unicast' ? null : `${text} is a ${describeClass(cls)} address`;
}

function describeClass(cls: string): string {
  const names: Record<string, string> = {
    private: 'private',
    loopback: 'loopback',
    linkLocal: 'link-local',
    carrierGradeNat: 'carrier-grade NAT (shared)',
    multicast: 'multicast',
    broadcast: 'broadcast',
    unspecified: 'unspecified',
    uniqueLocal: 'unique-local (private)',
    reserved: 'reserved (documentation or IETF)',
    ipv4Compatible: 'IPv4-compatible IPv6 (::/96)',
    nonGlobal: 'non-global IPv6 (outside 2000::/3)',
    deprecatedSiteLocal: 'site-local IPv6 (fec0::/10)',
    rfc6052: 'NAT64 (IPv4-embedding)',
    rfc6145: 'SIIT IPv4-translated',
    '6to4': '6to4 (IPv4-embedding)',
    teredo: 'Teredo (IPv4-embedding)',
    discard: 'discard-only',
    benchmarking: 'benchmarking',
    segmentRouting: 'segment-routing (SRv6)',
  };
  return names[cls] ?? `special-purpose (${cls})`;
}

export interface WebhookUrlPolicy {
  /** Host names or address literals that may be reached over plain http and at any address (local use). */
  allowedHosts: readonly string[];
}

/** Host of a URL in the form the allow-list uses: lower case, IPv6 without brackets. */
export function normalizedHost(url: URL): string {
  const h = url.hostname.toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

export function isAllowListed(url: URL, policy: WebhookUrlPolicy): boolean {
  const host = normalizedHost(url);
  return policy.allowedHosts.some((a) => a.toLowerCase().replace(/^\[|\]$/g, '') === host);
}

/**
 * Checks what can be checked without DNS: scheme, credentials, host shape, and a literal address. Returns the
 * reason the URL is refused, or null. Names are resolved and checked at creation and at every attempt.
 */
export function webhookUrlProblem(text: string, policy: WebhookUrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a valid absolute URL';
  }
  const allowListed = isAllowListed(url, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowListed)) {
    return url.protocol === 'http:'
      ? 'must use https (plain http only for hosts on the configured allow-list)'
      : 'must use https';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not carry a fragment';
  const host = normalizedHost(url);
  if (!host) return 'must name a host';
  if (allowListed) return null;
  if (addressClass(host) !== null) {
    const refusal = addressRefusal(host);
    return refusal ? `must not point at a non-public address: ${refusal}` : null;
  }
  return null;
}

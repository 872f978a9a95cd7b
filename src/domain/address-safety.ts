/**
 * Which destinations a webhook may reach (SSRF protection). Address classes come from ipaddr.js: only its
 * `unicast` class (public, globally routed) is acceptable; private, loopback, link-local, CGNAT, multicast,
 * unique-local, reserved, documentation, NAT64/6to4/Teredo (which embed IPv4) and the rest are refused.
 * IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries. Pure functions.
 */
import ipaddr from 'ipaddr.js';

/** The ipaddr.js class of an address literal, or null when `text` is not an IP address. */
export function addressClass(text: string): string | null {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (!ipaddr.isValid(bare)) return null;
  let addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return addr.range();
}

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
    reserved: 'reserved',
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
    return url.protocol === 'http:' ? 'must use https (plain http only for hosts on the configured allow-list)' : 'must use https';
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

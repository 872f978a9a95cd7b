/**
 * The webhook address filter against every non-global IPv6 form (issue 18, item 5): each case is a URL a
 * tenant could register, refused at creation before any DNS or connection.
 */
import { addressClass, addressRefusal, webhookUrlProblem } from '../../src/domain/address-safety';

const policy = { allowedHosts: [] };

describe('non-global IPv6 forms are refused', () => {
  it.each([
    ['::', 'unspecified', 'unspecified ::/128'],
    ['::1', 'loopback', 'loopback ::1/128'],
    ['::127.0.0.1', 'ipv4Compatible', 'IPv4-compatible ::/96 carrying loopback'],
    ['::10.0.0.1', 'ipv4Compatible', 'IPv4-compatible ::/96 carrying a private address'],
    ['::8.8.8.8', 'ipv4Compatible', 'IPv4-compatible ::/96 even carrying a public address'],
    ['::ffff:127.0.0.1', 'loopback', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'loopback', 'IPv4-mapped loopback in hex'],
    ['::ffff:192.168.0.1', 'private', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'linkLocal', 'IPv4-mapped cloud metadata address'],
    ['::ffff:0:10.0.0.1', 'rfc6145', 'SIIT IPv4-translated ::ffff:0:0/96'],
    ['64:ff9b::10.0.0.1', 'rfc6052', 'NAT64 well-known prefix 64:ff9b::/96'],
    ['64:ff9b::8.8.8.8', 'rfc6052', 'NAT64 well-known prefix with a public IPv4'],
    ['64:ff9b:1::a00:1', 'rfc6052', 'NAT64 local-use prefix 64:ff9b:1::/48'],
    ['2002:a00:1::1', '6to4', '6to4 embedding 10.0.0.1'],
    ['2002:7f00:1::1', '6to4', '6to4 embedding 127.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo', 'Teredo embedding 10.0.0.1 (obfuscated)'],
    ['2001::1', 'teredo', 'Teredo prefix 2001::/32'],
    ['fc00::1', 'uniqueLocal', 'unique local fc00::/7'],
    ['fd12:3456:789a::1', 'uniqueLocal', 'unique local fd00::/8'],
    ['fe80::1', 'linkLocal', 'link-local fe80::/10'],
    ['febf::1', 'linkLocal', 'link-local upper end'],
    ['fec0::1', 'deprecatedSiteLocal', 'deprecated site-local fec0::/10'],
    ['ff02::1', 'multicast', 'link-scope multicast'],
    ['ff0e::1', 'multicast', 'global-scope multicast'],
    ['2001:db8::1', 'reserved', 'documentation 2001:db8::/32'],
    ['3fff::1', 'reserved', 'documentation 3fff::/20 (RFC 9637)'],
    ['2001:2::1', 'benchmarking', 'benchmarking 2001:2::/48'],
    ['100::1', 'discard', 'discard-only 100::/64'],
    ['2001:10::1', 'deprecatedOrchid', 'ORCHID 2001:10::/28'],
    ['2001:20::1', 'orchid2', 'ORCHIDv2 2001:20::/28'],
    ['5f00::1', 'segmentRouting', 'SRv6 SIDs 5f00::/16'],
    ['2001:1::1', 'reserved', 'IETF protocol assignments 2001::/23'],
    ['4000::1', 'nonGlobal', 'unassigned space outside 2000::/3'],
    ['e000::1', 'nonGlobal', 'unassigned space below fc00::/7'],
    ['100:0:0:1::1', 'nonGlobal', 'unassigned space 100::/8 beyond the discard block'],
  ])('%s (%s: %s)', (address, cls) => {
    expect(addressClass(address)).toBe(cls);
    expect(addressRefusal(address)).toMatch(/ address$/);
    expect(webhookUrlProblem(`https://[${address}]/hook`, policy)).toMatch(/^must not point at a non-public address/);
  });

  it('refuses https://[::127.0.0.1]/, the URL the issue names', () => {
    expect(webhookUrlProblem('https://[::127.0.0.1]/', policy)).toBe(
      'must not point at a non-public address: ::7f00:1 is a IPv4-compatible IPv6 (::/96) address',
    );
  });
});

describe('global addresses still pass', () => {
  it.each(['2606:4700:4700::1111', '2a00:1450:4001:81b::200e', '2001:4860:4860::8888', '::ffff:8.8.8.8', '8.8.8.8'])(
    '%s',
    (address) => {
      expect(addressClass(address)).toBe('unicast');
      expect(addressRefusal(address)).toBeNull();
      expect(webhookUrlProblem(`https://${address.includes(':') ? `[${address}]` : address}/hook`, policy)).toBeNull();
    },
  );
});

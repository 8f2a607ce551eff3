// Which IP addresses count as public: only global unicast (ipaddr.js's "unicast" range: not
// loopback, private, link-local, CGNAT, documentation, benchmarking, multicast, reserved, ...).
// An IPv6 address that carries an IPv4 address is judged by that IPv4 address, because a
// translator or tunnel delivers it there: IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64,
// 6to4 and Teredo (server and client). Shared by the agent's web tool and the control plane's
// callback checks.
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4 = (hi: number, lo: number): IPv4 => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
const cidr6 = (text: string) => ipaddr.IPv6.parseCIDR(text);

// Ranges ipaddr.js calls "unicast" that are still not reachable on the public internet.
const extraBlocked6 = [cidr6('2001:db8::/32'), cidr6('3fff::/20'), cidr6('5f00::/16')];
const IPV4_COMPATIBLE = cidr6('::/96');
const NAT64_LOCAL = cidr6('64:ff9b:1::/48');

/** The IPv4 addresses an IPv6 address carries, or undefined when it carries none. */
function embeddedIpv4(addr: IPv6): IPv4[] | undefined {
  const p = addr.parts;
  switch (addr.range()) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return [v4(p[6]!, p[7]!)];
    case 'rfc6052': // 64:ff9b::a.b.c.d; the local-use 64:ff9b:1::/48 may embed anywhere: refuse it
      return addr.match(NAT64_LOCAL) ? [new ipaddr.IPv4([0, 0, 0, 0])] : [v4(p[6]!, p[7]!)];
    case '6to4': // 2002:aabb:ccdd::
      return [v4(p[1]!, p[2]!)];
    case 'teredo': // 2001:0:server:flags:port:client, the client obfuscated by XOR
      return [v4(p[2]!, p[3]!), v4(p[6]! ^ 0xffff, p[7]! ^ 0xffff)];
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, still understood by some stacks); :: and ::1 are not.
      if (addr.match(IPV4_COMPATIBLE) && (p[6] !== 0 || p[7]! > 1)) return [v4(p[6]!, p[7]!)];
      return undefined;
  }
}

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let addr: IPv4 | IPv6;
  try {
    addr = ipaddr.parse(address);
  } catch {
    return false;
  }
  // Only canonical literals: ipaddr.js also accepts forms like "0x7f.1" that resolvers differ on.
  if (addr.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const v6 = addr as IPv6;
  if (v6.zoneId) return false;
  const carried = embeddedIpv4(v6);
  if (carried) return carried.every((a) => a.range() === 'unicast');
  return v6.range() === 'unicast' && !extraBlocked6.some((range) => v6.match(range));
}

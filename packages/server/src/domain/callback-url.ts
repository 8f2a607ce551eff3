// Callback URL rules of the spec: https, at most 2048 characters, and no host that points inside
// (localhost, loopback, private, link-local, and the other special-purpose ranges). Literal hosts
// are checked here; names are resolved and checked again at send time.
import { BlockList, isIP } from 'node:net';

export const CALLBACK_URL_MAX = 2048;

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['64:ff9b::', 96], // NAT64 can reach private IPv4
  ['100::', 64], // discard
] as const) blocked.addSubnet(net, bits, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const h = parse(head);
  const t = parse(tail);
  return tail === undefined ? h : [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
}

/** IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses carry an IPv4 address. */
function embeddedIpv4(v6: string): string | undefined {
  const g = ipv6Groups(v6);
  if (g.length !== 8 || g.slice(0, 5).some((x) => x !== 0) || (g[5] !== 0 && g[5] !== 0xffff)) return undefined;
  if (g[5] === 0 && g[6] === 0) return undefined; // ::, ::1 and friends are IPv6 proper
  return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4) return !blocked.check(v4, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
}

export interface CallbackUrlPolicy {
  allowInsecure: boolean;
}

/** Returns why the URL is refused, or undefined when it is acceptable. */
export function callbackUrlProblem(raw: string, policy: CallbackUrlPolicy): string | undefined {
  if (raw.length > CALLBACK_URL_MAX) return `callbackUrl must be at most ${CALLBACK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'callbackUrl must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecure && url.protocol === 'http:')) {
    return 'callbackUrl must use https';
  }
  if (url.username || url.password) return 'callbackUrl must not carry credentials';
  if (policy.allowInsecure) return undefined;
  // WHATWG parsing already turned "2130706433" or "0x7f.1" into dotted IPv4.
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'callbackUrl host must not be localhost';
  if (isIP(host) && !isPublicAddress(host)) {
    return 'callbackUrl host must not be a loopback, private, link-local or otherwise internal address';
  }
  if (!host.includes('.') && !isIP(host)) return 'callbackUrl host must be a fully qualified public name';
  return undefined;
}

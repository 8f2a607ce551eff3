// Every range of the public-address policy, table-driven: [address, public?, why].
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from '@berth/contracts/net';

const table: Array<[string, boolean, string]> = [
  ['8.8.8.8', true, 'global IPv4'],
  ['1.1.1.1', true, 'global IPv4'],
  ['0.0.0.0', false, 'this network'],
  ['0.1.2.3', false, 'this network'],
  ['10.1.2.3', false, 'private'],
  ['172.16.0.1', false, 'private'],
  ['172.31.255.255', false, 'private'],
  ['172.32.0.1', true, 'just outside 172.16/12'],
  ['192.168.1.1', false, 'private'],
  ['100.64.0.1', false, 'carrier-grade NAT'],
  ['127.0.0.1', false, 'loopback'],
  ['127.255.255.254', false, 'loopback'],
  ['169.254.169.254', false, 'link-local (cloud metadata)'],
  ['192.0.0.8', false, 'IETF protocol assignments'],
  ['192.0.2.1', false, 'documentation'],
  ['198.18.0.1', false, 'benchmarking'],
  ['198.51.100.1', false, 'documentation'],
  ['203.0.113.1', false, 'documentation'],
  ['224.0.0.1', false, 'multicast'],
  ['240.0.0.1', false, 'reserved'],
  ['255.255.255.255', false, 'broadcast'],
  ['2606:4700:4700::1111', true, 'global IPv6'],
  ['2a00:1450:4001:82a::200e', true, 'global IPv6'],
  ['::', false, 'unspecified'],
  ['::1', false, 'loopback'],
  ['fc00::1', false, 'unique local'],
  ['fd12:3456::1', false, 'unique local'],
  ['fe80::1', false, 'link-local'],
  ['fec0::1', false, 'site-local'],
  ['ff02::1', false, 'multicast'],
  ['2001:db8::1', false, 'documentation'],
  ['3fff::1', false, 'documentation (RFC 9637)'],
  ['100::1', false, 'discard'],
  ['2001:2::1', false, 'benchmarking'],
  ['::ffff:127.0.0.1', false, 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', false, 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', false, 'IPv4-mapped private'],
  ['::ffff:8.8.8.8', true, 'IPv4-mapped global'],
  ['::ffff:0:127.0.0.1', false, 'IPv4-translated loopback'],
  ['::ffff:0:169.254.169.254', false, 'IPv4-translated metadata'],
  ['::ffff:0:8.8.8.8', true, 'IPv4-translated global'],
  ['::127.0.0.1', false, 'IPv4-compatible loopback'],
  ['::10.0.0.1', false, 'IPv4-compatible private'],
  ['64:ff9b::127.0.0.1', false, 'NAT64 to loopback'],
  ['64:ff9b::a9fe:a9fe', false, 'NAT64 to metadata'],
  ['64:ff9b::8.8.8.8', true, 'NAT64 to a global address'],
  ['64:ff9b:1::7f00:1', false, 'local-use NAT64'],
  ['64:ff9b:1::808:808', false, 'local-use NAT64, never global'],
  ['2002:7f00:1::', false, '6to4 of loopback'],
  ['2002:a00:1::1', false, '6to4 of private'],
  ['2002:808:808::1', true, '6to4 of a global address'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', false, 'Teredo, client 127.0.0.1'],
  ['2001:0:7f00:1:8000:63bf:f7f7:f7f7', false, 'Teredo, server 127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', true, 'Teredo, both global'],
  ['fe80::1%eth0', false, 'zone id'],
  ['localhost', false, 'not an address'],
  ['0x7f.1', false, 'non-canonical IPv4'],
  ['2130706433', false, 'decimal IPv4'],
  ['', false, 'empty'],
];

test('isPublicAddress: every range', () => {
  const wrong = table
    .filter(([addr, want]) => isPublicAddress(addr) !== want)
    .map(([a, w, why]) => `${a} (${why}) should be ${w ? 'public' : 'blocked'}`);
  assert.deepEqual(wrong, []);
});

// An undici dispatcher that only connects to public addresses: the name is resolved, every
// resolved address is checked, and the connection goes to the address that was checked (no
// second lookup that a rebinding DNS server could answer differently).
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { isPublicAddress } from './public-address.js';

export class BlockedAddressError extends Error {
  constructor(host: string, address?: string) {
    super(`${host}${address && address !== host ? ` (${address})` : ''} is not a public address`);
    this.name = 'BlockedAddressError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback) {
  dnsLookup(hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const bad = addresses.find((a) => !isPublicAddress(a.address));
    if (bad || addresses.length === 0) return callback(new BlockedAddressError(hostname, bad?.address), '', 0);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/** Checks a URL's literal host (an IP literal never goes through lookup). */
export function assertPublicHost(url: URL) {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) throw new BlockedAddressError(host);
  if (host === 'localhost' || host.endsWith('.localhost')) throw new BlockedAddressError(host);
}

export function createPublicOnlyAgent(opts: { allowPrivate?: boolean; timeoutMs?: number } = {}) {
  return new Agent({
    connect: { timeout: opts.timeoutMs ?? 10_000, ...(opts.allowPrivate ? {} : { lookup: publicOnlyLookup as never }) },
    headersTimeout: opts.timeoutMs ?? 10_000,
    bodyTimeout: opts.timeoutMs ?? 10_000,
  } as ConstructorParameters<typeof Agent>[0]);
}

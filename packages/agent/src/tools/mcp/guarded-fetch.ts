// The fetch an MCP transport is given: every request's URL is checked (scheme, literal address),
// its name resolved once and every address checked, the connection made to the checked address
// (no second lookup a rebinding DNS server could answer differently), no redirect followed, and
// each response body cut off past a size. The SDK uses it for the Streamable HTTP POSTs and GET
// stream, the old SSE transport's stream and the POSTs to the endpoint the server names, so an
// `endpoint` event or a redirect pointing at a private address is refused like the first URL.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { BlockedAddressError } from '@berth/contracts/net';
import type { McpNetworkPolicy } from './policy.js';

/** One response body at most (a tool list, a result, an SSE stream's whole life): 4 MiB. */
export const MCP_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export class ResponseTooLargeError extends Error {
  constructor(limit: number) {
    super(`the server sent more than ${Math.round(limit / 1024 / 1024)} MB in one answer`);
    this.name = 'ResponseTooLargeError';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** Every address of a name (node:dns by default; a test's resolver, whose answers change). */
export type ResolveAll = (
  hostname: string,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolve: ResolveAll = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** Called by the dispatcher for each new connection: a name is resolved and checked every time. */
function checkedLookup(policy: McpNetworkPolicy, resolve: ResolveAll) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback) => {
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const bad = addresses.find((a) => !policy.addressAllowed(a.address));
      if (bad || addresses.length === 0) return callback(new BlockedAddressError(hostname, bad?.address), '', 0);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Throws when the URL itself is refused: its scheme, or a literal address (those skip the lookup). */
export function checkMcpUrl(url: URL, policy: McpNetworkPolicy) {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && !policy.httpsOnly))
    throw new BlockedUrlError(policy.httpsOnly ? 'only https:// servers can be used' : 'only http(s) URLs');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !policy.addressAllowed(host)) throw new BlockedAddressError(host);
  if (policy.httpsOnly && (host === 'localhost' || host.endsWith('.localhost'))) throw new BlockedAddressError(host);
}

export class BlockedUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedUrlError';
  }
}

/** A body that errors once more than `limit` bytes went through. */
function capped(body: ReadableStream<Uint8Array>, limit: number, onOversize?: () => void): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) {
          controller.error(new ResponseTooLargeError(limit));
          onOversize?.();
        } else controller.enqueue(chunk);
      },
    }),
  );
}

export interface GuardedFetch {
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  close(): Promise<void>;
}

/**
 * One dispatcher per MCP connection: its sockets serve one assistant's one server, never another
 * tenant's session.
 */
export function guardedFetch(
  policy: McpNetworkPolicy,
  opts: {
    maxResponseBytes?: number;
    connectTimeoutMs?: number;
    /** An answer was cut off: the calls waiting on it end now, not at their timeout. */
    onOversize?: () => void;
    resolve?: ResolveAll;
  } = {},
): GuardedFetch {
  const limit = opts.maxResponseBytes ?? MCP_MAX_RESPONSE_BYTES;
  const dispatcher = new Agent({
    connect: {
      timeout: opts.connectTimeoutMs ?? 10_000,
      lookup: checkedLookup(policy, opts.resolve ?? systemResolve) as never,
    },
    // An SSE stream is quiet for long stretches: the SDK's request timeouts bound each call.
    bodyTimeout: 0,
    headersTimeout: 30_000,
    connections: 4,
  });
  return {
    async fetch(input, init) {
      const url = new URL(String(input instanceof Request ? input.url : input));
      checkMcpUrl(url, policy);
      const res = await undiciFetch(url, {
        ...(init as Parameters<typeof undiciFetch>[1]),
        redirect: 'manual',
        dispatcher,
      });
      // A body-less status (202 to a notification, 204) has nothing to cap.
      if (!res.body || [101, 204, 205, 304].includes(res.status)) return res as unknown as Response;
      return new Response(
        capped(
          res.body as ReadableStream<Uint8Array>,
          limit,
          // Only a POST's answer carries calls' results; the long-lived GET stream of server
          // notifications is cut and reopened by the SDK without ending any call.
          (init?.method ?? 'GET').toUpperCase() === 'POST' ? opts.onOversize : undefined,
        ),
        {
          status: res.status,
          statusText: res.statusText,
          headers: res.headers as unknown as Headers,
        },
      );
    },
    close: () => dispatcher.close(),
  };
}

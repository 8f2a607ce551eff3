// Keep-alive undici pools to upstreams (workers, model providers), one per origin. An upstream on
// a Unix socket is written `http+unix://<percent-encoded socket path>/path` — the local agent host
// listens that way so that no other local user can stand in for it.
import { Pool } from 'undici';

export interface UpstreamAddress {
  /** Identifies the connection target: the origin, or the socket. */
  key: string;
  /** The origin undici sends in Host and uses for its pool. */
  origin: string;
  socketPath?: string;
  /** Path and query of the URL. */
  path: string;
}

export function upstreamAddress(url: string | URL): UpstreamAddress {
  const u = typeof url === 'string' ? new URL(url) : url;
  const path = (u.pathname || '/') + u.search;
  if (u.protocol === 'http+unix:') {
    const socketPath = decodeURIComponent(u.hostname);
    return { key: `unix:${socketPath}`, origin: 'http://localhost', socketPath, path };
  }
  return { key: u.origin, origin: u.origin, path };
}

export function newUpstreamPool(url: string | URL, options: Pool.Options = {}): Pool {
  const a = upstreamAddress(url);
  return new Pool(a.origin, { ...options, ...(a.socketPath ? { socketPath: a.socketPath } : {}) });
}

/**
 * One pool per upstream, no cap on connections: every open SSE stream holds one, and in local mode
 * all agents share one host. Client requests bound the number; idle ones are kept for reuse.
 */
export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly timeoutMs: number) {}

  get(url: string | URL): { pool: Pool; path: string } {
    const a = upstreamAddress(url);
    let pool = this.pools.get(a.key);
    if (!pool) {
      pool = newUpstreamPool(url, {
        connections: null,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.pools.set(a.key, pool);
    }
    return { pool, path: a.path };
  }

  async close() {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}

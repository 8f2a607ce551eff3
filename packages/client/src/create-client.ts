// The one way to talk to a control plane: openapi-fetch typed by the generated schema, the
// credentials set once.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './generated/schema.js';

export interface BerthClientOptions {
  /** The control plane's base URL ('' or '/' in a page the server itself serves). */
  baseUrl: string;
  /** Sent as X-API-Key on every request; a browser session uses its cookie instead. */
  apiKey?: string;
  fetch?: typeof globalThis.fetch;
  /** Sent on every request (e.g. x-berth-organization). */
  headers?: Record<string, string>;
}

export type BerthClient = Client<paths>;
export type { Middleware };

export function createBerthClient(opts: BerthClientOptions): BerthClient {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  return createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers,
    // Resolve the global at call time: tests and the browser may replace it after creation.
    fetch: opts.fetch ?? ((req: Request) => globalThis.fetch(req)),
    credentials: 'same-origin',
  });
}

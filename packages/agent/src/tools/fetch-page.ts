// Fetches a public web page as text for the model: http(s) only, public addresses only (checked
// on every redirect hop and pinned at connect), at most 1 MiB read and 10 s, text trimmed.
import type { Dispatcher } from 'undici';
import { deadline } from '@berth/contracts/deadline';
import { oneStringArgument, ToolFailure, type Tool } from './tool.js';
import { decodePage } from './charset.js';
import { type HtmlPool, PageTooComplexError, sharedHtmlPool } from './html-pool.js';
import { loadUndici } from '../http/undici.js';

export const FETCH_MAX_BYTES = 1024 * 1024;
export const FETCH_MAX_CHARS = 8000;
const MAX_REDIRECTS = 3;

/** Converts HTML to text off the event loop, within the pool's deadline. */
export function htmlToText(html: string, pool: HtmlPool = sharedHtmlPool(), tenant = ''): Promise<string> {
  return pool.convert(html, tenant);
}

// undici and the address policy load with the first fetch, not with the host (http/undici.ts).
const network = () => Promise.all([loadUndici(), import('@berth/contracts/net')]);

export function fetchPageTool(
  opts: { allowPrivate?: boolean; timeoutMs?: number; htmlPool?: HtmlPool } = {},
): Tool & { dispatcher: { close(): Promise<void> } } {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pool = opts.htmlPool ?? sharedHtmlPool();
  // One dispatcher for every agent of the process, made on the first fetch.
  let agent: Dispatcher | undefined;
  return {
    dispatcher: { close: async () => agent?.close() },
    name: 'fetch_web_page',
    emoji: '🌐',
    description: 'Fetches a public web page (http or https) and returns its text content.',
    parameters: oneStringArgument('url', 'Absolute http(s) URL'),
    label: (args) => {
      try {
        return `Reading ${new URL(String(args.url)).hostname}`;
      } catch {
        return 'Reading a web page';
      }
    },
    async run(args, signal, ctx) {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        throw new ToolFailure('Give an absolute http(s) URL.');
      }
      // Held by its own timer until the finally below (contracts/deadline.ts says why).
      const limit = deadline(timeoutMs, signal);
      try {
        const [{ request }, { assertPublicHost, BlockedAddressError, createPublicOnlyAgent }] = await network();
        agent ??= createPublicOnlyAgent({ allowPrivate: opts.allowPrivate, timeoutMs });
        const dispatcher = agent;
        for (let hop = 0; ; hop++) {
          if (url.protocol !== 'http:' && url.protocol !== 'https:')
            throw new ToolFailure('Only http and https pages can be fetched.');
          try {
            if (!opts.allowPrivate) assertPublicHost(url);
            const res = await request(url, {
              dispatcher,
              signal: limit.signal,
              headers: {
                'user-agent': 'BerthAssistant/1.0 (+fetch_web_page)',
                accept: 'text/html,text/plain,application/json;q=0.9,*/*;q=0.5',
              },
            });
            if ([301, 302, 303, 307, 308].includes(res.statusCode) && res.headers.location) {
              await res.body.dump();
              if (hop >= MAX_REDIRECTS) throw new ToolFailure('Too many redirects.');
              url = new URL(String(res.headers.location), url);
              continue;
            }
            const type = String(res.headers['content-type'] ?? '');
            let received = 0;
            const chunks: Buffer[] = [];
            for await (const chunk of res.body) {
              received += chunk.length;
              if (received > FETCH_MAX_BYTES) {
                res.body.destroy();
                break;
              }
              chunks.push(chunk);
            }
            const raw = decodePage(Buffer.concat(chunks).subarray(0, FETCH_MAX_BYTES), type);
            if (res.statusCode >= 400) throw new ToolFailure(`The page answered HTTP ${res.statusCode}.`);
            let text = raw;
            if (type.includes('html')) {
              try {
                text = await htmlToText(raw, pool, ctx?.tenant);
              } catch (err) {
                if (err instanceof PageTooComplexError) throw new ToolFailure(`Page too complex: ${err.message}`);
                throw err;
              }
            }
            const cut = text.length > FETCH_MAX_CHARS;
            return JSON.stringify({
              url: url.toString(),
              status: res.statusCode,
              content: text.slice(0, FETCH_MAX_CHARS),
              truncated: cut,
            });
          } catch (err) {
            if (err instanceof ToolFailure) throw err;
            if (
              err instanceof BlockedAddressError ||
              (err as { cause?: unknown }).cause instanceof BlockedAddressError
            ) {
              throw new ToolFailure(`Refused: ${url.hostname} is not a public address.`);
            }
            if (signal.aborted) throw err;
            if (limit.timedOut) throw new ToolFailure(`The page did not load within ${timeoutMs / 1000} s.`);
            throw new ToolFailure(`Could not fetch the page: ${(err as Error).message}`);
          }
        }
      } finally {
        limit.clear();
      }
    },
  };
}

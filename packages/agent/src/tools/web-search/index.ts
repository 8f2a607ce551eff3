// web_search (DESIGN §7.4): the agent holds no search key. It asks the control plane's search
// gateway with the deployment's gateway credential; the control plane picks the provider, holds its
// key and meters each query. A provider that is down or slow is a sentence within the deadline.
import { request } from 'undici';
import { deadline } from '@berth/contracts/deadline';
import { oneStringArgument, ToolFailure, type Tool } from '../tool.js';

export interface SearchTarget {
  /** The control plane's search route, e.g. https://berth.example/gateway/v1/search. */
  url: string;
  credential: string;
}

export const SEARCH_DEADLINE_MS = 10_000;

interface Result {
  title: string;
  url: string;
  snippet: string;
}

export function webSearchTool(target: SearchTarget, deadlineMs = SEARCH_DEADLINE_MS): Tool {
  return {
    name: 'web_search',
    emoji: '🌐',
    description:
      'Search the web. Returns results with title, url and snippet; cite the pages you use as links in your answer.',
    parameters: oneStringArgument('query'),
    label: (args) => `Searching the web${typeof args.query === 'string' ? ` for "${args.query.slice(0, 60)}"` : ''}`,
    async run(args, signal) {
      const query = typeof args.query === 'string' ? args.query.trim() : '';
      if (!query) throw new ToolFailure('Give the words to search for as "query".');
      if (query.length > 400) throw new ToolFailure('A search query may be at most 400 characters.');
      // Held by its own timer until the finally below (contracts/deadline.ts says why).
      const limit = deadline(deadlineMs, signal);
      let status: number;
      let body: unknown;
      try {
        const res = await request(target.url, {
          method: 'POST',
          headers: { authorization: `Bearer ${target.credential}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
          signal: limit.signal,
        });
        status = res.statusCode;
        body = await res.body.json().catch(() => undefined);
      } catch (err) {
        if (signal.aborted) throw err;
        throw new ToolFailure(
          limit.timedOut
            ? `Web search did not answer within ${Math.round(deadlineMs / 1000)} seconds; answer without it or try again later.`
            : `Web search is unreachable right now (${(err as Error).message}); answer without it.`,
        );
      } finally {
        limit.clear();
      }
      const data = (body as { data?: { results?: Result[] }; error?: { message?: string } } | undefined) ?? {};
      if (status !== 200 || !Array.isArray(data.data?.results))
        throw new ToolFailure(
          `Web search failed: ${data.error?.message ?? `status ${status}`}. Answer without it, and say so.`,
        );
      return JSON.stringify({
        results: data.data.results,
        note: 'Cite the pages you use as Markdown links [title](url).',
      });
    },
  };
}

// The web-search port (DESIGN §7.4): the operator's search provider behind one method. Adapters
// map their provider's answer to results; every failure is a SearchUnavailable with a sentence.
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export interface SearchProvider {
  readonly name: 'searxng' | 'brave' | 'tavily';
  search(query: string, signal: AbortSignal): Promise<SearchResult[]>;
}

export class SearchUnavailable extends Error {
  override name = 'SearchUnavailable';
}

export const MAX_RESULTS = 8;

/** Only http(s) links with a title reach the model; text is bounded. */
export function cleanResults(rows: Array<{ title?: unknown; url?: unknown; snippet?: unknown }>): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of rows) {
    if (typeof r.url !== 'string' || !/^https?:\/\//i.test(r.url) || typeof r.title !== 'string') continue;
    out.push({
      title: r.title.slice(0, 200),
      url: r.url.slice(0, 2000),
      snippet: typeof r.snippet === 'string' ? r.snippet.slice(0, 500) : '',
    });
    if (out.length >= MAX_RESULTS) break;
  }
  return out;
}

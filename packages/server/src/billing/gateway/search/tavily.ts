// Tavily's search API: POST {SEARCH_URL}/search { query, max_results } with a Bearer key →
// { results: [{ title, url, content }] }.
import { fetchJson } from './http.js';
import { cleanResults, MAX_RESULTS, type SearchProvider } from './port.js';

export function tavily(baseUrl: string, apiKey: string): SearchProvider {
  return {
    name: 'tavily',
    async search(query, signal) {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
      const body = (await fetchJson(
        `${baseUrl}/search`,
        { method: 'POST', headers, body: JSON.stringify({ query, max_results: MAX_RESULTS }) },
        signal,
      )) as { results?: unknown };
      const rows = Array.isArray(body?.results) ? (body.results as Array<Record<string, unknown>>) : [];
      return cleanResults(rows.map((r) => ({ title: r.title, url: r.url, snippet: r.content })));
    },
  };
}

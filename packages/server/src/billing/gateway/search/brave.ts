// Brave's web search API: GET {SEARCH_URL}/res/v1/web/search?q=… with X-Subscription-Token →
// { web: { results: [{ title, url, description }] } }.
import { fetchJson } from './http.js';
import { cleanResults, type SearchProvider } from './port.js';

export function brave(baseUrl: string, apiKey: string): SearchProvider {
  return {
    name: 'brave',
    async search(query, signal) {
      const url = `${baseUrl}/res/v1/web/search?${new URLSearchParams({ q: query, count: '8' })}`;
      const headers = { accept: 'application/json', 'x-subscription-token': apiKey };
      const body = (await fetchJson(url, { method: 'GET', headers }, signal)) as { web?: { results?: unknown } };
      const rows = Array.isArray(body?.web?.results) ? (body.web.results as Array<Record<string, unknown>>) : [];
      return cleanResults(rows.map((r) => ({ title: r.title, url: r.url, snippet: r.description })));
    },
  };
}

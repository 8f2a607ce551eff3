// SearXNG's JSON API: GET {SEARCH_URL}/search?q=…&format=json → { results: [{ title, url, content }] }.
import { fetchJson } from './http.js';
import { cleanResults, type SearchProvider } from './port.js';

export function searxng(baseUrl: string, apiKey?: string): SearchProvider {
  return {
    name: 'searxng',
    async search(query, signal) {
      const url = `${baseUrl}/search?${new URLSearchParams({ q: query, format: 'json' })}`;
      const headers: Record<string, string> = { accept: 'application/json' };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;
      const body = (await fetchJson(url, { method: 'GET', headers }, signal)) as { results?: unknown };
      const rows = Array.isArray(body?.results) ? (body.results as Array<Record<string, unknown>>) : [];
      return cleanResults(rows.map((r) => ({ title: r.title, url: r.url, snippet: r.content })));
    },
  };
}

// The configured search provider (SEARCH_PROVIDER), or none: then web_search is not offered.
import type { Config } from '../../../platform/config/env.js';
import { brave } from './brave.js';
import type { SearchProvider } from './port.js';
import { searxng } from './searxng.js';
import { tavily } from './tavily.js';

export function selectSearchProvider(search: Config['search']): SearchProvider | undefined {
  if (!search.provider || !search.url) return undefined;
  if (search.provider === 'searxng') return searxng(search.url, search.apiKey);
  if (!search.apiKey) return undefined;
  return search.provider === 'brave' ? brave(search.url, search.apiKey) : tavily(search.url, search.apiKey);
}

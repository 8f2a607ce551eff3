// One bounded JSON call to a search provider: a deadline, a size cap, and a sentence for each way
// it can fail (never the provider's key, which only travels in a header).
import { request } from 'undici';
import { SearchUnavailable } from './port.js';

const MAX_BODY = 2 * 1024 * 1024;

export async function fetchJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
  signal: AbortSignal,
): Promise<unknown> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, { ...init, signal, headersTimeout: 0, bodyTimeout: 0 });
  } catch (err) {
    if (signal.aborted) throw new SearchUnavailable('the search provider did not answer in time');
    throw new SearchUnavailable(`the search provider could not be reached (${(err as Error).name})`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => {});
    throw new SearchUnavailable(`the search provider answered ${res.statusCode}`);
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of res.body) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) throw new SearchUnavailable('the search provider answered too much');
      chunks.push(c as Buffer);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    if (err instanceof SearchUnavailable) throw err;
    if (signal.aborted) throw new SearchUnavailable('the search provider did not answer in time');
    throw new SearchUnavailable('the search provider answered something other than JSON');
  }
}

// What a model provider's 429 says about when to try again, kept as it crosses the hops (provider →
// model gateway → agent → control plane → client). Retry-After and retry-after-ms are what the
// stock SDKs read; the x-ratelimit-* family (OpenAI's -requests/-tokens pairs, OpenRouter's plain
// trio) says which budget ran out. Berth's own ratelimit-* headers describe the caller's request
// budget, a different thing, and must not travel with it (issue 57, finding 3).

/** Headers of an upstream 429 that go on to the client. */
export function isRetryHeader(name: string): boolean {
  return name === 'retry-after' || name === 'retry-after-ms' || name.startsWith('x-ratelimit-');
}

// A provider's value is relayed, not trusted: short, printable, and only a handful of headers.
const VALUE = /^[\x20-\x7e]{1,64}$/;
const MAX_HEADERS = 12;

/** The retry headers of an upstream answer (lower-case names, as Node and undici give them). */
export function retryHeadersOf(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [name, value] of Object.entries(headers)) {
    if (n >= MAX_HEADERS) break;
    if (typeof value === 'string' && isRetryHeader(name) && VALUE.test(value)) {
      out[name] = value;
      n++;
    }
  }
  return out;
}

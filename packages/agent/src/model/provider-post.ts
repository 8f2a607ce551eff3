// One POST to the provider's OpenAI-compatible media endpoints (speech, pictures, transcriptions):
// the agent's base URL is the control plane's gateway, so a refusal arrives as the gateway's error
// envelope or the provider's own, and each status becomes the ProviderError the turn reports.
import { ProviderError } from './provider.js';
import { loadUndici } from '../http/undici.js';

export interface ProviderPostOptions {
  provider: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}

/** The refusal's message and code, from either error shape or, failing that, its first words. */
const detailOf = (text: string): { message: string; code: unknown } => {
  try {
    const body = JSON.parse(text);
    const message = body?.error?.message ?? body?.message;
    return { message: typeof message === 'string' ? message.slice(0, 300) : '', code: body?.error?.code };
  } catch {
    return { message: text.replace(/\s+/g, ' ').slice(0, 200), code: undefined };
  }
};

/**
 * POSTs `body` (of `contentType`) to `path` under the base URL; answers the response's status and
 * bytes, or throws the ProviderError a failed connection or a status of 400 and above means.
 */
export async function postToProvider(
  o: ProviderPostOptions,
  path: string,
  body: string | Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<{ status: number; bytes: Uint8Array }> {
  const { request } = await loadUndici();
  const timeout = o.timeoutMs ?? 120_000;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(`${o.baseUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${o.apiKey}`, ...headers },
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    const { describeNetworkError } = await import('@berth/contracts/net');
    throw new ProviderError('unavailable', o.provider, undefined, describeNetworkError(err));
  }
  const bytes = new Uint8Array(await res.body.arrayBuffer().catch(() => new ArrayBuffer(0)));
  const s = res.statusCode;
  if (s >= 400) {
    const { message, code } = detailOf(utf8(bytes));
    if (s === 429 && code === 'CREDITS_EXHAUSTED') throw new ProviderError('credits', o.provider, s, message);
    throw new ProviderError(
      s === 401 || s === 403 ? 'auth' : s === 429 ? 'rate_limit' : s < 500 ? 'bad_request' : 'upstream',
      o.provider,
      s,
      message,
    );
  }
  return { status: s, bytes };
}

/** The bytes as text, as undici's body.text() reads them (UTF-8, a leading BOM dropped). */
export const utf8 = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

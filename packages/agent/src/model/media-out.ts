// The Speaker and Painter ports (DESIGN §9.5): text becomes an OGG/Opus voice note through the
// provider's OpenAI-compatible POST {baseUrl}/audio/speech, a prompt becomes a picture through POST
// {baseUrl}/images/generations. Every agent's base URL is the control plane's gateway, which picks
// the catalog's model and voice and meters both in the chat ledger (byok too), so the agent sends
// only what to say or draw.
import { ProviderError } from './provider.js';

export interface Speaker {
  /** One voice note (OGG/Opus) of `text` (at most SPEECH_PART_CHARS characters). */
  speak(text: string, signal: AbortSignal): Promise<Uint8Array>;
}

export interface Picture {
  bytes: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
}

export interface Painter {
  paint(prompt: string, size: ImageSize | undefined, signal: AbortSignal): Promise<Picture>;
}

export const IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024'] as const;
export type ImageSize = (typeof IMAGE_SIZES)[number];

export interface MediaOutOptions {
  provider: string;
  baseUrl: string;
  apiKey: string;
  timeoutMs?: number;
}

const detailOf = (text: string): { message: string; code: unknown } => {
  try {
    const body = JSON.parse(text);
    const message = body?.error?.message ?? body?.message;
    return { message: typeof message === 'string' ? message.slice(0, 300) : '', code: body?.error?.code };
  } catch {
    return { message: text.replace(/\s+/g, ' ').slice(0, 200), code: undefined };
  }
};

/** POSTs JSON; answers the body's bytes, or throws the ProviderError its status means. */
async function post(o: MediaOutOptions, path: string, body: object, signal: AbortSignal): Promise<Uint8Array> {
  const { request } = await import('undici');
  const timeout = o.timeoutMs ?? 120_000;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(`${o.baseUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
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
    const { message, code } = detailOf(Buffer.from(bytes).toString('utf8'));
    if (s === 429 && code === 'CREDITS_EXHAUSTED') throw new ProviderError('credits', o.provider, s, message);
    throw new ProviderError(
      s === 401 || s === 403 ? 'auth' : s === 429 ? 'rate_limit' : s < 500 ? 'bad_request' : 'upstream',
      o.provider,
      s,
      message,
    );
  }
  return bytes;
}

export class OpenAiCompatibleSpeaker implements Speaker {
  constructor(private readonly o: MediaOutOptions) {}

  async speak(text: string, signal: AbortSignal): Promise<Uint8Array> {
    const bytes = await post(this.o, '/audio/speech', { input: text, response_format: 'opus' }, signal);
    // "OggS": anything else would not play as a voice note.
    if (!(bytes[0] === 0x4f && bytes[1] === 0x67 && bytes[2] === 0x67 && bytes[3] === 0x53))
      throw new ProviderError('upstream', this.o.provider, 200, 'answered without OGG/Opus audio');
    return bytes;
  }
}

export class OpenAiCompatiblePainter implements Painter {
  constructor(private readonly o: MediaOutOptions) {}

  async paint(prompt: string, size: ImageSize | undefined, signal: AbortSignal): Promise<Picture> {
    const raw = await post(this.o, '/images/generations', { prompt, n: 1, ...(size ? { size } : {}) }, signal);
    const { sniffImage } = await import('@berth/contracts/chat/image');
    let b64: unknown;
    try {
      b64 = JSON.parse(Buffer.from(raw).toString('utf8'))?.data?.[0]?.b64_json;
    } catch {
      b64 = undefined;
    }
    const bytes = typeof b64 === 'string' ? new Uint8Array(Buffer.from(b64, 'base64')) : undefined;
    const type = bytes ? sniffImage(bytes) : undefined;
    if (!bytes || (type !== 'image/png' && type !== 'image/jpeg' && type !== 'image/webp'))
      throw new ProviderError('upstream', this.o.provider, 200, 'answered without a picture');
    return { bytes, mimeType: type };
  }
}

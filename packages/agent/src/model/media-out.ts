// The Speaker and Painter ports (DESIGN §9.5): text becomes an OGG/Opus voice note through the
// provider's OpenAI-compatible POST {baseUrl}/audio/speech, a prompt becomes a picture through POST
// {baseUrl}/images/generations. Every agent's base URL is the control plane's gateway, which picks
// the catalog's model and voice and meters both in the chat ledger (byok too), so the agent sends
// only what to say or draw.
import { ProviderError } from './provider.js';
import { type ProviderPostOptions, postToProvider } from './provider-post.js';

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

export type MediaOutOptions = ProviderPostOptions;

/** POSTs JSON; answers the body's bytes, or throws the ProviderError its status means. */
async function post(o: MediaOutOptions, path: string, body: object, signal: AbortSignal): Promise<Uint8Array> {
  const headers = { 'content-type': 'application/json' };
  return (await postToProvider(o, path, JSON.stringify(body), headers, signal)).bytes;
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

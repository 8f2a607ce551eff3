// The Transcriber port (DESIGN §7.3): a voice note or audio file becomes the user's words through
// the provider's OpenAI-compatible POST {baseUrl}/audio/transcriptions (multipart, answers
// {"text"}). Every agent has the control plane's gateway as its base URL, which
// meters the minutes in the same ledger as chat, with the byok owner's key or the operator's.
import { ProviderError } from './provider.js';

export interface AudioFile {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
}

export interface Transcriber {
  transcribe(audio: AudioFile, signal: AbortSignal): Promise<string>;
}

export interface TranscriberOptions {
  provider: string;
  baseUrl: string;
  apiKey: string;
  model: string;
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

export class OpenAiCompatibleTranscriber implements Transcriber {
  private readonly url: string;

  constructor(private readonly o: TranscriberOptions) {
    this.url = `${o.baseUrl.replace(/\/+$/, '')}/audio/transcriptions`;
  }

  async transcribe(audio: AudioFile, signal: AbortSignal): Promise<string> {
    // undici loads with the first voice note, as with the first model call.
    const { request } = await import('undici');
    const { multipartBody } = await import('@berth/contracts/net');
    const form = await multipartBody({
      file: { bytes: audio.bytes, type: audio.mimeType, name: audio.fileName },
      model: this.o.model,
    });
    const timeout = this.o.timeoutMs ?? 120_000;
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(this.url, {
        method: 'POST',
        body: form.body,
        headers: {
          authorization: `Bearer ${this.o.apiKey}`,
          accept: 'application/json',
          'content-type': form.contentType,
        },
        signal,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      const { describeNetworkError } = await import('@berth/contracts/net');
      throw new ProviderError('unavailable', this.o.provider, undefined, describeNetworkError(err));
    }
    const text = await res.body.text().catch(() => '');
    const s = res.statusCode;
    if (s >= 400) {
      const { message, code } = detailOf(text);
      if (s === 429 && code === 'CREDITS_EXHAUSTED') throw new ProviderError('credits', this.o.provider, s, message);
      throw new ProviderError(
        s === 401 || s === 403 ? 'auth' : s === 429 ? 'rate_limit' : s < 500 ? 'bad_request' : 'upstream',
        this.o.provider,
        s,
        message,
      );
    }
    try {
      const body = JSON.parse(text) as { text?: unknown };
      if (typeof body.text === 'string') return body.text;
    } catch {
      /* reported below */
    }
    throw new ProviderError('upstream', this.o.provider, s, 'answered without a transcript');
  }
}

// The Transcriber port (DESIGN §7.3): a voice note or audio file becomes the user's words through
// the provider's OpenAI-compatible POST {baseUrl}/audio/transcriptions (multipart, answers
// {"text"}). Every agent has the control plane's gateway as its base URL, which
// meters the minutes in the same ledger as chat, with the byok owner's key or the operator's.
import { ProviderError } from './provider.js';
import { type ProviderPostOptions, postToProvider, utf8 } from './provider-post.js';

export interface AudioFile {
  bytes: Uint8Array;
  fileName: string;
  mimeType: string;
}

export interface Transcriber {
  transcribe(audio: AudioFile, signal: AbortSignal): Promise<string>;
}

export interface TranscriberOptions extends ProviderPostOptions {
  model: string;
}

export class OpenAiCompatibleTranscriber implements Transcriber {
  constructor(private readonly o: TranscriberOptions) {}

  async transcribe(audio: AudioFile, signal: AbortSignal): Promise<string> {
    const { multipartBody } = await import('@berth/contracts/net');
    const form = await multipartBody({
      file: { bytes: audio.bytes, type: audio.mimeType, name: audio.fileName },
      model: this.o.model,
    });
    const headers = { accept: 'application/json', 'content-type': form.contentType };
    const { status, bytes } = await postToProvider(this.o, '/audio/transcriptions', form.body, headers, signal);
    try {
      const body = JSON.parse(utf8(bytes)) as { text?: unknown };
      if (typeof body.text === 'string') return body.text;
    } catch {
      /* reported below */
    }
    throw new ProviderError('upstream', this.o.provider, status, 'answered without a transcript');
  }
}

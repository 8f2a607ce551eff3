// Photos, voice notes and documents from WhatsApp (DESIGN §7.3, §9.1) as one user turn, through
// the agent's media pipeline as Telegram's are: media id → GET /{media-id} → its URL, downloaded
// with the number's token (graph.ts), held in memory for the turn alone; history keeps a
// placeholder ("[photo] caption", "[voice] transcript", "[document name] caption").
import { IMAGE_MAX_BYTES, imageDataUrl, sniffImage } from '@berth/contracts/chat/image';
import { providerFailure } from '../../core/events.js';
import { TooLargeError } from '../../media/read-capped.js';
import { mayBeDocument } from '../../media/documents.js';
import type { DocumentReader } from '../../media/document-pool.js';
import { documentPart, withCaption } from '../../media/document-part.js';
import { MediaRefusal } from '../../media/refusal.js';
import type { Transcriber } from '../../model/transcriber.js';
import { type Graph, MediaTooLarge } from './graph.js';
import type { WaMessage } from './updates.js';
import { fill, type WhatsAppTexts } from './texts/index.js';

/** What Berth reads of one file: the Cloud API's own limits are 16 MB for audio, 100 MB for documents. */
export const WA_FILE_MAX_BYTES = 20 * 1024 * 1024;

export interface MediaTurn {
  text: string;
  images?: string[];
  stored: string;
  notice?: string;
}

export { MediaRefusal };

export interface MediaDeps {
  graph: Graph;
  vision: boolean;
  transcriber: Transcriber | undefined;
  documents?: DocumentReader;
  tenant: string;
  signal: AbortSignal;
  /** The sender's language (texts/index.ts). */
  texts: WhatsAppTexts;
}

async function fetchMedia(deps: MediaDeps, id: string, cap: number) {
  try {
    return await deps.graph.media(id, cap);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw new MediaRefusal(
      err instanceof MediaTooLarge || err instanceof TooLargeError ? deps.texts.fileTooBig : deps.texts.downloadFailed,
    );
  }
}

async function photoTurn(id: string, caption: string | undefined, deps: MediaDeps): Promise<MediaTurn> {
  if (!deps.vision) throw new MediaRefusal(deps.texts.noVision);
  const { bytes } = await fetchMedia(deps, id, IMAGE_MAX_BYTES);
  const type = sniffImage(bytes);
  if (!type) throw new MediaRefusal(deps.texts.notImage);
  return { text: caption ?? '', images: [imageDataUrl(type, bytes)], stored: withCaption('[photo]', caption) };
}

async function audioTurn(m: WaMessage, deps: MediaDeps): Promise<MediaTurn> {
  const a = m.audio!;
  if (!deps.transcriber) throw new MediaRefusal(deps.texts.noAudio);
  const { bytes, mimeType } = await fetchMedia(deps, a.id, WA_FILE_MAX_BYTES);
  // WhatsApp's voice notes are Ogg Opus ("audio/ogg; codecs=opus"): the transcriber wants the type alone.
  const type = (a.mime_type ?? mimeType ?? 'audio/ogg').split(';')[0]!.trim();
  let transcript: string;
  try {
    transcript = (
      await deps.transcriber.transcribe(
        { bytes, fileName: a.voice ? 'voice.ogg' : 'audio.ogg', mimeType: type },
        deps.signal,
      )
    ).trim();
  } catch (err) {
    if (providerFailure(err) === 'credits' || deps.signal.aborted) throw err;
    throw new MediaRefusal(deps.texts.transcriptionFailed);
  }
  if (!transcript) throw new MediaRefusal(deps.texts.emptyTranscript);
  return { text: transcript, stored: `[voice] ${transcript}` };
}

async function documentTurn(m: WaMessage, deps: MediaDeps): Promise<MediaTurn> {
  const d = m.document!;
  const name = (d.filename ?? 'document').replace(/[\r\n\]]/g, ' ').slice(0, 100);
  if (d.mime_type?.startsWith('image/')) return photoTurn(d.id, d.caption, deps);
  if (!mayBeDocument(name, d.mime_type)) throw new MediaRefusal(deps.texts.unsupportedDocument);
  const { bytes } = await fetchMedia(deps, d.id, WA_FILE_MAX_BYTES);
  return documentPart({ name, mimeType: d.mime_type, bytes, caption: d.caption }, deps, {
    unreadable: (why) => fill(deps.texts.unreadableDocument, { why }),
    cut: (what) => fill(deps.texts.documentCut, { name, what }),
  });
}

/** The user turn of a media message; throws MediaRefusal with the sentence to send instead. */
export function mediaTurn(m: WaMessage, deps: MediaDeps): Promise<MediaTurn> {
  if (m.type === 'image' && m.image) return photoTurn(m.image.id, m.image.caption, deps);
  if (m.type === 'audio' && m.audio) return audioTurn(m, deps);
  if (m.type === 'document' && m.document) return documentTurn(m, deps);
  return Promise.reject(new MediaRefusal(deps.texts.unsupported));
}

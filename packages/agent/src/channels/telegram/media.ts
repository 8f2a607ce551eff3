// Photos, voice notes, audio files and documents from Telegram (DESIGN §7.3) turned into one user
// turn, or into one sentence for the user when they cannot be. Files are fetched with getFile and
// downloaded from the configured Bot API root only (a client pinned to its origin, no redirects),
// never more than announced nor than 20 MB, and held in memory for the turn alone: history keeps
// a placeholder ("[photo] caption", "[voice] transcript", "[document name] caption").
import type { Message } from 'grammy/types';
import type { Client } from 'undici';
import { IMAGE_MAX_BYTES, imageDataUrl, sniffImage } from '@berth/contracts/chat/image';
import type { Transcriber } from '../../model/transcriber.js';
import { providerFailure } from '../../core/events.js';
import { readCapped, TooLargeError } from '../../media/read-capped.js';
import { mayBeDocument } from '../../media/documents.js';
import type { DocumentReader } from '../../media/document-pool.js';
import { documentPart, withCaption } from '../../media/document-part.js';
import { MediaRefusal } from '../../media/refusal.js';
import { fill, type Texts } from './texts/index.js';
import { loadUndici } from '../../http/undici.js';

/** A media message as the user's turn: its words, its images (data URLs), what history keeps. */
export interface MediaTurn {
  text: string;
  images?: string[];
  stored: string;
  /** A sentence the user sees before the answer (a document cut short). */
  notice?: string;
}

/** The Bot API's getFile limit: larger files get a sentence, not a download. */
export const FILE_MAX_BYTES = 20 * 1024 * 1024;
/** Longest voice note or audio file transcribed. */
export const AUDIO_MAX_SECONDS = 10 * 60;

export { MediaRefusal };

export interface MediaDeps {
  vision: boolean;
  transcriber: Transcriber | undefined;
  /** getFile: the file's path on the Bot API root (throws when Telegram refuses the id). */
  getFile(fileId: string): Promise<{ file_path?: string; file_size?: number }>;
  files: TelegramFiles;
  signal: AbortSignal;
  texts: Texts;
  /** Whose documents these are (the assistant): each tenant's wait in their own queue. */
  tenant: string;
  /** The host's document pool unless a test holds documents in a stand-in. */
  documents?: DocumentReader;
}

/** Downloads from `{apiRoot}/file/bot<token>/<path>` on a client bound to the root's origin. */
export class TelegramFiles {
  private client: Client | undefined;
  private readonly origin: string;
  private readonly prefix: string;

  constructor(apiRoot: string, token: string) {
    const root = new URL(apiRoot);
    this.origin = root.origin;
    this.prefix = `${root.pathname.replace(/\/$/, '')}/file/bot${token}/`;
  }

  /** `announced`: maxBytes is the size Telegram announced (not only a cap). */
  async download(filePath: string, maxBytes: number, signal: AbortSignal, announced = false): Promise<Buffer> {
    const { Client } = await loadUndici();
    this.client ??= new Client(this.origin, { headersTimeout: 30_000, bodyTimeout: 30_000 });
    // A `.` or `..` segment (or an empty one) would reach beyond this bot's files on a server
    // that resolves them, e.g. another bot's methods; Telegram's own paths never hold one.
    const segments = filePath.split('/');
    if (segments.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\')))
      throw new Error('the file path Telegram gave is not a plain relative path');
    const path = this.prefix + segments.map(encodeURIComponent).join('/');
    const res = await this.client.request({ path, method: 'GET', signal });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw new Error(`the file answered HTTP ${res.statusCode}`);
    }
    return readCapped(res.body, maxBytes, announced);
  }

  async close() {
    await this.client?.close();
  }
}

/** The file's bytes: never past what Telegram announced (nor 20 MB), and all of what it announced. */
async function fetchFile(deps: MediaDeps, fileId: string, announced: number | undefined, cap = FILE_MAX_BYTES) {
  if (announced !== undefined && announced > cap) throw new MediaRefusal(deps.texts.fileTooBig);
  let file: { file_path?: string; file_size?: number };
  try {
    file = await deps.getFile(fileId);
  } catch {
    throw new MediaRefusal(deps.texts.downloadFailed);
  }
  const size = file.file_size ?? announced;
  if (size !== undefined && size > cap) throw new MediaRefusal(deps.texts.fileTooBig);
  if (!file.file_path) throw new MediaRefusal(deps.texts.downloadFailed);
  let bytes: Buffer;
  try {
    bytes = await deps.files.download(file.file_path, size ?? cap, deps.signal, size !== undefined);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw new MediaRefusal(
      err instanceof TooLargeError && size === undefined ? deps.texts.fileTooBig : deps.texts.downloadFailed,
    );
  }
  // Fewer bytes than announced: the download broke off somewhere.
  if (size !== undefined && bytes.length !== size) throw new MediaRefusal(deps.texts.downloadFailed);
  return bytes;
}

async function photoTurn(m: Message, deps: MediaDeps): Promise<MediaTurn> {
  if (!deps.vision) throw new MediaRefusal(deps.texts.noVision);
  // Telegram sends several sizes, smallest first: the largest one a model may be sent.
  const sizes = (m.photo ?? []).filter((p) => (p.file_size ?? 0) <= IMAGE_MAX_BYTES);
  const best = sizes.at(-1);
  if (!best) throw new MediaRefusal(deps.texts.fileTooBig);
  const bytes = await fetchFile(deps, best.file_id, best.file_size, IMAGE_MAX_BYTES);
  const type = sniffImage(bytes);
  if (!type) throw new MediaRefusal(deps.texts.notImage);
  return { text: m.caption ?? '', images: [imageDataUrl(type, bytes)], stored: withCaption('[photo]', m.caption) };
}

async function audioTurn(m: Message, deps: MediaDeps): Promise<MediaTurn> {
  const a = m.voice ?? m.audio!;
  if (!deps.transcriber) throw new MediaRefusal(deps.texts.noAudio);
  if (a.duration > AUDIO_MAX_SECONDS) throw new MediaRefusal(deps.texts.audioTooLong);
  const bytes = await fetchFile(deps, a.file_id, a.file_size);
  const fileName = (m.audio?.file_name ?? 'voice.ogg').slice(0, 100);
  let transcript: string;
  try {
    transcript = (
      await deps.transcriber.transcribe({ bytes, fileName, mimeType: a.mime_type ?? 'audio/ogg' }, deps.signal)
    ).trim();
  } catch (err) {
    if (providerFailure(err) === 'credits') throw err;
    if (deps.signal.aborted) throw err;
    throw new MediaRefusal(
      providerFailure(err) === 'bad_request'
        ? fill(deps.texts.transcriptionRefused, { why: (err as Error).message.slice(0, 200) })
        : deps.texts.transcriptionFailed,
    );
  }
  if (!transcript) throw new MediaRefusal(deps.texts.emptyTranscript);
  const text = m.caption ? `${m.caption}\n\n${transcript}` : transcript;
  return { text, stored: `[voice] ${transcript}` };
}

async function documentTurn(m: Message, deps: MediaDeps): Promise<MediaTurn> {
  const d = m.document!;
  const name = (d.file_name ?? 'document').replace(/[\r\n\]]/g, ' ').slice(0, 100);
  if (!mayBeDocument(name, d.mime_type)) throw new MediaRefusal(deps.texts.unsupportedDocument);
  const bytes = await fetchFile(deps, d.file_id, d.file_size);
  return documentPart({ name, mimeType: d.mime_type, bytes, caption: m.caption }, deps, {
    unreadable: (why) => fill(deps.texts.unreadableDocument, { why }),
    cut: (what) => fill(deps.texts.documentCut, { name, what }),
  });
}

/** The user turn of a media message; throws MediaRefusal with the sentence to send instead. */
export function mediaTurn(m: Message, deps: MediaDeps): Promise<MediaTurn> {
  if (m.photo?.length) return photoTurn(m, deps);
  if (m.voice || m.audio) return audioTurn(m, deps);
  if (m.document) {
    // A picture sent as a file: read as a photo when it says it is one.
    if (m.document.mime_type?.startsWith('image/')) {
      const doc = m.document;
      return photoTurn(
        {
          ...m,
          photo: [
            { file_id: doc.file_id, file_unique_id: doc.file_unique_id, file_size: doc.file_size, width: 0, height: 0 },
          ],
        },
        deps,
      );
    }
    return documentTurn(m, deps);
  }
  return Promise.reject(new MediaRefusal(deps.texts.unsupported));
}

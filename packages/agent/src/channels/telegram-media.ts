// Photos, voice notes, audio files and documents from Telegram (DESIGN §7.3) turned into one user
// turn, or into one sentence for the user when they cannot be. Files are fetched with getFile and
// downloaded from the configured Bot API root only (a client pinned to its origin, no redirects),
// never more than announced nor than 20 MB, and held in memory for the turn alone: history keeps
// a placeholder ("[photo] caption", "[voice] transcript", "[document name] caption").
import type { Message } from 'grammy/types';
import type { Client } from 'undici';
import { IMAGE_MAX_BYTES, imageDataUrl, sniffImage } from '@berth/contracts/chat/image';
import type { InboundTurn } from '../agent.js';
import type { Transcriber } from '../model/transcriber.js';
import { ProviderError } from '../model/provider.js';
import { readCapped, TooLargeError } from '../media/read-capped.js';
import { mayBeDocument, READABLE_DOCUMENTS, readDocument } from '../media/documents.js';
import { UnreadableDocumentError } from '../media/document-pool.js';

/** The Bot API's getFile limit: larger files get a sentence, not a download. */
export const FILE_MAX_BYTES = 20 * 1024 * 1024;
/** Longest voice note or audio file transcribed. */
export const AUDIO_MAX_SECONDS = 10 * 60;

export const TEXTS = {
  noVision: `I can read text, voice notes and documents (${READABLE_DOCUMENTS}), but not pictures with this model. Please describe the photo in words.`,
  noAudio: 'I cannot listen to voice notes with this model. Please write your message in words.',
  tooLong: `That recording is longer than ${AUDIO_MAX_SECONDS / 60} minutes; please send a shorter one.`,
  tooBig: 'That file is larger than 20 MB, which is more than I can read. Please send a smaller one.',
  unsupported: `I can read text, photos, voice notes and documents (${READABLE_DOCUMENTS}). I cannot read this kind of message.`,
  unsupportedDocument: `I can read ${READABLE_DOCUMENTS} documents; this file is none of those.`,
  failedDownload: 'I could not download that file from Telegram. Please send it again.',
  notImage: 'That file is not a picture I can read (PNG, JPEG, GIF or WebP).',
  emptyTranscript: 'I could not make out any words in that recording.',
  unreadable: (why: string) => `I could not read that document: ${why}.`,
  transcriptionFailed: 'I could not transcribe that recording just now. Please try again, or write your message.',
} as const;

export class MediaRefusal extends Error {
  constructor(readonly sentence: string) {
    super(sentence);
    this.name = 'MediaRefusal';
  }
}

export interface MediaDeps {
  vision: boolean;
  transcriber: Transcriber | undefined;
  /** getFile: the file's path on the Bot API root (throws when Telegram refuses the id). */
  getFile(fileId: string): Promise<{ file_path?: string; file_size?: number }>;
  files: TelegramFiles;
  signal: AbortSignal;
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

  async download(filePath: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    const { Client } = await import('undici');
    this.client ??= new Client(this.origin, { headersTimeout: 30_000, bodyTimeout: 30_000 });
    const path = this.prefix + filePath.split('/').map(encodeURIComponent).join('/');
    const res = await this.client.request({ path, method: 'GET', signal });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw new Error(`the file answered HTTP ${res.statusCode}`);
    }
    return readCapped(res.body, maxBytes);
  }

  async close() {
    await this.client?.close();
  }
}

/** The file's bytes: never past what Telegram announced (nor 20 MB), and all of what it announced. */
async function fetchFile(deps: MediaDeps, fileId: string, announced: number | undefined, cap = FILE_MAX_BYTES) {
  if (announced !== undefined && announced > cap) throw new MediaRefusal(TEXTS.tooBig);
  let file: { file_path?: string; file_size?: number };
  try {
    file = await deps.getFile(fileId);
  } catch {
    throw new MediaRefusal(TEXTS.failedDownload);
  }
  const size = file.file_size ?? announced;
  if (size !== undefined && size > cap) throw new MediaRefusal(TEXTS.tooBig);
  if (!file.file_path) throw new MediaRefusal(TEXTS.failedDownload);
  let bytes: Buffer;
  try {
    bytes = await deps.files.download(file.file_path, size ?? cap, deps.signal);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    throw new MediaRefusal(err instanceof TooLargeError && size === undefined ? TEXTS.tooBig : TEXTS.failedDownload);
  }
  // Fewer bytes than announced: the download broke off somewhere.
  if (size !== undefined && bytes.length !== size) throw new MediaRefusal(TEXTS.failedDownload);
  return bytes;
}

const withCaption = (tag: string, caption: string | undefined) => (caption ? `${tag} ${caption}` : tag);

async function photoTurn(m: Message, deps: MediaDeps): Promise<InboundTurn> {
  if (!deps.vision) throw new MediaRefusal(TEXTS.noVision);
  // Telegram sends several sizes, smallest first: the largest one a model may be sent.
  const sizes = (m.photo ?? []).filter((p) => (p.file_size ?? 0) <= IMAGE_MAX_BYTES);
  const best = sizes.at(-1);
  if (!best) throw new MediaRefusal(TEXTS.tooBig);
  const bytes = await fetchFile(deps, best.file_id, best.file_size, IMAGE_MAX_BYTES);
  const type = sniffImage(bytes);
  if (!type) throw new MediaRefusal(TEXTS.notImage);
  return { text: m.caption ?? '', images: [imageDataUrl(type, bytes)], stored: withCaption('[photo]', m.caption) };
}

async function audioTurn(m: Message, deps: MediaDeps): Promise<InboundTurn> {
  const a = m.voice ?? m.audio!;
  if (!deps.transcriber) throw new MediaRefusal(TEXTS.noAudio);
  if (a.duration > AUDIO_MAX_SECONDS) throw new MediaRefusal(TEXTS.tooLong);
  const bytes = await fetchFile(deps, a.file_id, a.file_size);
  const fileName = (m.audio?.file_name ?? 'voice.ogg').slice(0, 100);
  let transcript: string;
  try {
    transcript = (
      await deps.transcriber.transcribe({ bytes, fileName, mimeType: a.mime_type ?? 'audio/ogg' }, deps.signal)
    ).trim();
  } catch (err) {
    if (err instanceof ProviderError && err.kind === 'credits') throw err;
    if (deps.signal.aborted) throw err;
    throw new MediaRefusal(
      err instanceof ProviderError && err.kind === 'bad_request'
        ? `I could not transcribe that recording (${err.message.slice(0, 200)}).`
        : TEXTS.transcriptionFailed,
    );
  }
  if (!transcript) throw new MediaRefusal(TEXTS.emptyTranscript);
  const text = m.caption ? `${m.caption}\n\n${transcript}` : transcript;
  return { text, stored: `[voice] ${transcript}` };
}

async function documentTurn(m: Message, deps: MediaDeps): Promise<InboundTurn> {
  const d = m.document!;
  const name = (d.file_name ?? 'document').replace(/[\r\n\]]/g, ' ').slice(0, 100);
  if (!mayBeDocument(name, d.mime_type)) throw new MediaRefusal(TEXTS.unsupportedDocument);
  const bytes = await fetchFile(deps, d.file_id, d.file_size);
  let read: Awaited<ReturnType<typeof readDocument>>;
  try {
    read = await readDocument(name, d.mime_type, bytes);
  } catch (err) {
    if (err instanceof UnreadableDocumentError) throw new MediaRefusal(TEXTS.unreadable(err.message));
    throw err;
  }
  const parts = [m.caption ?? '', `[document ${name}]`, read.text, read.note ? `[${read.note}]` : ''];
  return {
    text: parts.filter(Boolean).join('\n\n'),
    stored: withCaption(`[document ${name}]`, m.caption),
    ...(read.note ? { notice: read.note } : {}),
  };
}

/** The user turn of a media message; throws MediaRefusal with the sentence to send instead. */
export function mediaTurn(m: Message, deps: MediaDeps): Promise<InboundTurn> {
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
  return Promise.reject(new MediaRefusal(TEXTS.unsupported));
}

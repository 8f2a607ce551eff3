// A Discord message's attachments (photos, voice messages, audio files, documents) and its words
// as one user turn, through the agent's media pipeline as Telegram's and WhatsApp's files are
// (DESIGN §7.3, decision 0033-discord-attachments). Every refusal that the attachment's own
// description decides (no vision, too large, too long, not a kind Berth reads) comes before any
// byte is downloaded; then the files are fetched one after the other from Discord's CDN (no token:
// its URLs are signed), never past the size Discord announced, each turned into text or an image
// before the next is fetched. History keeps placeholders ("[photo]", "[voice] transcript",
// "[document name]") and the words.
import { IMAGE_MAX_BYTES, IMAGES_MAX_PER_REQUEST, imageDataUrl, sniffImage } from '@berth/contracts/chat/image';
import { providerFailure } from '../../core/events.js';
import { mayBeDocument } from '../../media/documents.js';
import type { DocumentReader } from '../../media/document-pool.js';
import { documentPart } from '../../media/document-part.js';
import { readCapped } from '../../media/read-capped.js';
import type { Transcriber } from '../../model/transcriber.js';
import { AUDIO_MAX_SECONDS, FILE_MAX_BYTES, MediaRefusal, type MediaTurn } from '../telegram/media.js';
import { fill, type Texts } from '../telegram/texts/index.js';
import { loadUndici } from '../../http/undici.js';

export { MediaRefusal, type MediaTurn };

/** An attachment as MESSAGE_CREATE carries it (voice messages add duration_secs and waveform). */
export interface DiscordAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url?: string;
  content_type?: string;
  duration_secs?: number;
  waveform?: string;
}

/** Message flag IS_VOICE_MESSAGE: the one attachment is a recording made in Discord's client. */
export const IS_VOICE_MESSAGE = 1 << 13;

/** Where Discord serves attachments; its signed URLs need no token. */
const DISCORD_CDN_ORIGINS = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

/**
 * Downloads an attachment from Discord's CDN, or from the origin of the configured API root (a
 * proxy, or FakeDiscord in tests): an attachment's URL is never followed anywhere else, nor
 * redirected, so a forged payload cannot make the host fetch an address of its choosing.
 */
export class DiscordCdn {
  private readonly origins: string[];

  constructor(apiRoot?: string) {
    this.origins = apiRoot ? [...DISCORD_CDN_ORIGINS, new URL(apiRoot).origin] : DISCORD_CDN_ORIGINS;
  }

  /** The file's bytes: exactly the `size` Discord announced, never more (the rest is not read). */
  async download(url: string, size: number, signal: AbortSignal): Promise<Buffer> {
    let at: URL;
    try {
      at = new URL(url);
    } catch {
      throw new Error('the attachment URL is not a URL');
    }
    if (!this.origins.includes(at.origin)) throw new Error(`attachments are not fetched from ${at.origin}`);
    const { request } = await loadUndici();
    const res = await request(at, { method: 'GET', signal, headersTimeout: 30_000, bodyTimeout: 30_000 });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw new Error(`the CDN answered HTTP ${res.statusCode}`);
    }
    const bytes = await readCapped(res.body, size, true);
    // Fewer bytes than announced: the download broke off somewhere.
    if (bytes.length !== size) throw new Error(`the CDN sent ${bytes.length} of ${size} bytes`);
    return bytes;
  }
}

export interface AttachmentDeps {
  vision: boolean;
  transcriber: Transcriber | undefined;
  cdn: DiscordCdn;
  signal: AbortSignal;
  texts: Texts;
  /** Whose documents these are (the assistant): each tenant waits in their own queue. */
  tenant: string;
  documents?: DocumentReader;
}

type Kind = 'image' | 'audio' | 'document';

const mimeOf = (a: DiscordAttachment) => (a.content_type ?? '').split(';')[0]!.trim().toLowerCase();
const nameOf = (a: DiscordAttachment) => (a.filename || 'file').replace(/[\r\n\]]/g, ' ').slice(0, 100);

function kindOf(a: DiscordAttachment, voice: boolean): Kind | undefined {
  const type = mimeOf(a);
  if (type.startsWith('image/')) return 'image';
  if (voice || a.duration_secs !== undefined || type.startsWith('audio/')) return 'audio';
  if (type.startsWith('video/')) return undefined;
  return 'document';
}

/**
 * What the attachments' descriptions alone refuse, before anything is downloaded: the first
 * sentence that applies, or their kinds in order.
 */
function check(attachments: DiscordAttachment[], voice: boolean, deps: AttachmentDeps): Kind[] {
  const t = deps.texts;
  const kinds = attachments.map((a) => kindOf(a, voice));
  if (kinds.filter((k) => k === 'image').length > IMAGES_MAX_PER_REQUEST) throw new MediaRefusal(t.tooManyImages);
  attachments.forEach((a, i) => {
    const kind = kinds[i];
    if (!kind) throw new MediaRefusal(t.unsupported);
    if (kind === 'image') {
      if (!deps.vision) throw new MediaRefusal(t.noVision);
      if (a.size > IMAGE_MAX_BYTES) throw new MediaRefusal(t.imageTooBig);
    } else if (kind === 'audio') {
      if (!deps.transcriber) throw new MediaRefusal(t.noAudio);
      if ((a.duration_secs ?? 0) > AUDIO_MAX_SECONDS) throw new MediaRefusal(t.audioTooLong);
    } else if (!mayBeDocument(nameOf(a), mimeOf(a) || undefined)) throw new MediaRefusal(t.unsupportedDocument);
    if (a.size > FILE_MAX_BYTES) throw new MediaRefusal(t.fileTooBig);
  });
  return kinds as Kind[];
}

async function fetchBytes(a: DiscordAttachment, deps: AttachmentDeps): Promise<Buffer> {
  try {
    return await deps.cdn.download(a.url, a.size, deps.signal);
  } catch (err) {
    if (deps.signal.aborted) throw err;
    // More bytes than Discord announced (readCapped's TooLargeError) is a file that is not what
    // it said, not a large one: the same sentence as a broken download.
    throw new MediaRefusal(deps.texts.discordDownloadFailed);
  }
}

interface Part {
  text?: string;
  image?: string;
  stored: string;
  notice?: string;
}

async function imagePart(a: DiscordAttachment, deps: AttachmentDeps): Promise<Part> {
  const bytes = await fetchBytes(a, deps);
  const type = sniffImage(bytes);
  if (!type) throw new MediaRefusal(deps.texts.notImage);
  return { image: imageDataUrl(type, bytes), stored: '[photo]' };
}

async function audioPart(a: DiscordAttachment, voice: boolean, deps: AttachmentDeps): Promise<Part> {
  const bytes = await fetchBytes(a, deps);
  let transcript: string;
  try {
    transcript = (
      await deps.transcriber!.transcribe(
        { bytes, fileName: nameOf(a), mimeType: mimeOf(a) || 'audio/ogg' },
        deps.signal,
      )
    ).trim();
  } catch (err) {
    if (providerFailure(err) === 'credits' || deps.signal.aborted) throw err;
    throw new MediaRefusal(
      providerFailure(err) === 'bad_request'
        ? fill(deps.texts.transcriptionRefused, { why: (err as Error).message.slice(0, 200) })
        : deps.texts.transcriptionFailed,
    );
  }
  if (!transcript) throw new MediaRefusal(deps.texts.emptyTranscript);
  return { text: transcript, stored: `[${voice ? 'voice' : `audio ${nameOf(a)}`}] ${transcript}` };
}

async function documentAttachment(a: DiscordAttachment, deps: AttachmentDeps): Promise<Part> {
  const name = nameOf(a);
  const bytes = await fetchBytes(a, deps);
  return documentPart({ name, mimeType: mimeOf(a) || undefined, bytes }, deps, {
    unreadable: (why) => fill(deps.texts.unreadableDocument, { why }),
    cut: (what) => fill(deps.texts.documentCut, { name, what }),
  });
}

/**
 * The turn of a message with attachments: `words` (the message's text, mention taken out) first,
 * then each file's text in order, its images beside. Throws MediaRefusal with the sentence to send
 * instead (no model call, nothing stored).
 */
export async function attachmentTurn(
  attachments: DiscordAttachment[],
  flags: number,
  words: string,
  deps: AttachmentDeps,
): Promise<MediaTurn> {
  const voice = (flags & IS_VOICE_MESSAGE) !== 0;
  const kinds = check(attachments, voice, deps);
  const parts: Part[] = [];
  for (const [i, a] of attachments.entries()) {
    const kind = kinds[i]!;
    parts.push(
      kind === 'image'
        ? await imagePart(a, deps)
        : kind === 'audio'
          ? await audioPart(a, voice, deps)
          : await documentAttachment(a, deps),
    );
  }
  const images = parts.flatMap((p) => (p.image ? [p.image] : []));
  const notices = parts.flatMap((p) => (p.notice ? [p.notice] : []));
  return {
    text: [words, ...parts.map((p) => p.text ?? '')].filter(Boolean).join('\n\n'),
    ...(images.length ? { images } : {}),
    stored: [...parts.map((p) => p.stored), words].filter(Boolean).join(' '),
    ...(notices.length ? { notice: notices.join('\n') } : {}),
  };
}

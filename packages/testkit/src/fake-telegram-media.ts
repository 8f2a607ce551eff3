// What the fake Telegram does with sendPhoto, sendDocument and sendVoice: the Bot API's multipart
// upload (the file under the method's own field name, the other parameters beside it), its limits
// and its 400s, and the message each call answers with (PhotoSize[], Document, Voice objects).
import type { IncomingMessage } from 'node:http';
import { readBody } from './http.js';

export type MediaMethod = 'sendPhoto' | 'sendDocument' | 'sendVoice';
export const MEDIA_FIELD: Record<MediaMethod, 'photo' | 'document' | 'voice'> = {
  sendPhoto: 'photo',
  sendDocument: 'document',
  sendVoice: 'voice',
};

/** One photo, document or voice note a bot uploaded, as the user would receive it. */
export interface SentMedia {
  token: string;
  method: MediaMethod;
  chat_id: number;
  message_id: number;
  fileName: string;
  mimeType: string;
  bytes: Buffer;
  /** What the caption shows (tags removed when parse_mode was HTML). */
  caption?: string;
  /** The caption's HTML as sent, when parse_mode was HTML. */
  captionHtml?: string;
  parse_mode?: string;
  reply_parameters?: unknown;
  /** When the fake took it (Date.now()). */
  at?: number;
}

/** Bot API upload limits: photos 10 MB, other files 50 MB; captions 1,024 characters. */
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
export const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
export const CAPTION_MAX_CHARS = 1024;

export interface ParsedRequest {
  params: Record<string, unknown>;
  files: Map<string, { name: string; type: string; bytes: Buffer }>;
}

/**
 * A multipart/form-data request (grammY's InputFile upload): fields and files apart. Parsed by hand
 * because grammY writes headers as Telegram takes them but WHATWG's parser does not
 * (`content-disposition:form-data;name="x";filename=p.png`: no spaces, the file name unquoted).
 */
export async function readMultipart(req: IncomingMessage): Promise<ParsedRequest> {
  const body = await readBody(req);
  const boundary = /boundary=("?)([^";]+)\1/i.exec(String(req.headers['content-type'] ?? ''))?.[2];
  if (!boundary) throw new Error('multipart without a boundary');
  const params: Record<string, unknown> = {};
  const files = new Map<string, { name: string; type: string; bytes: Buffer }>();
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1] ?? /name=([^;\r\n]+)/i.exec(head)?.[1];
    const fileName = /filename="([^"]*)"/i.exec(head)?.[1] ?? /filename=([^;\r\n]+)/i.exec(head)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream';
    if (name !== undefined) {
      if (fileName !== undefined) files.set(name, { name: fileName, type, bytes: Buffer.from(content) });
      else {
        const v = content.toString('utf8');
        // grammY sends objects (reply_parameters, reply_markup) as JSON text in their fields.
        params[name] = /^[[{]/.test(v) ? safeJson(v) : v;
      }
    }
    at = next;
  }
  // A field naming an attached file ("attach://<name>") is that file.
  for (const [k, v] of Object.entries(params)) {
    const m = typeof v === 'string' ? /^attach:\/\/(.+)$/.exec(v) : null;
    if (m && files.has(m[1]!)) files.set(k, files.get(m[1]!)!);
  }
  return { params, files };
}

function safeJson(v: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

const isPng = (b: Buffer) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const isOgg = (b: Buffer) => b.subarray(0, 4).toString('latin1') === 'OggS';

/** Telegram's 400 for this upload, or undefined when it is taken. */
export function refusalOf(method: MediaMethod, file: { bytes: Buffer } | undefined, caption: string | undefined) {
  const field = MEDIA_FIELD[method];
  if (!file) return `Bad Request: there is no ${field} in the request`;
  if (file.bytes.length === 0) return 'Bad Request: file must be non-empty';
  if (caption !== undefined && [...caption].length > CAPTION_MAX_CHARS)
    return 'Bad Request: message caption is too long';
  if (method === 'sendPhoto') {
    if (file.bytes.length > PHOTO_MAX_BYTES) return 'Bad Request: PHOTO_SAVE_FILE_INVALID';
    if (!isPng(file.bytes) && !isJpeg(file.bytes)) return 'Bad Request: IMAGE_PROCESS_FAILED';
  } else if (file.bytes.length > UPLOAD_MAX_BYTES) return 'Request Entity Too Large';
  // A voice note must be OGG/Opus to play as one (anything else Telegram shows as a file; refused here
  // so that a test notices).
  if (method === 'sendVoice' && !isOgg(file.bytes)) return 'Bad Request: VOICE_MESSAGES_FORBIDDEN or not OGG/Opus';
  return undefined;
}

/** The object the message carries for this upload, shaped like the Bot API's. */
export function mediaObject(method: MediaMethod, fileId: string, unique: string, f: SentMedia) {
  if (method === 'sendPhoto') {
    // Telegram keeps a few sizes; the test PNGs are tiny, so one thumbnail and the original.
    return {
      photo: [
        { file_id: `${fileId}_s`, file_unique_id: `${unique}s`, width: 90, height: 90, file_size: f.bytes.length },
        { file_id: fileId, file_unique_id: unique, width: 1024, height: 1024, file_size: f.bytes.length },
      ],
    };
  }
  if (method === 'sendVoice')
    return {
      voice: {
        file_id: fileId,
        file_unique_id: unique,
        duration: 1,
        mime_type: 'audio/ogg',
        file_size: f.bytes.length,
      },
    };
  return {
    document: {
      file_id: fileId,
      file_unique_id: unique,
      file_name: f.fileName,
      mime_type: f.mimeType,
      file_size: f.bytes.length,
    },
  };
}

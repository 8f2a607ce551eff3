// Images a vision model is sent (DESIGN §7.3): what the chat API, the agent and the model gateway
// accept as an `image_url` part. Only data URLs ever reach a model: an https URL a client sends is
// fetched by the agent through the public-only dispatcher and turned into one.

/** Bytes of one image as sent to a model. Telegram's largest photo size is far below this. */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** Images in one request: a conversation's photos stay placeholders in history, so few are needed. */
export const IMAGES_MAX_PER_REQUEST = 4;
export const IMAGE_URL_MAX_CHARS = 2048;

export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** The type the bytes really are (by their signature), whatever the sender called them. */
export function sniffImage(b: Uint8Array): ImageType | undefined {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  return undefined;
}

export const imageDataUrl = (type: ImageType, bytes: Uint8Array) =>
  `data:${type};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`;

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,/;

export type ImageUrlCheck = { ok: true; kind: 'data' | 'https' } | { ok: false; why: string };

/**
 * A data URL must hold a PNG, JPEG, GIF or WebP (by its bytes, not only its label) within
 * IMAGE_MAX_BYTES; any other URL must be https (the agent fetches it through the SSRF-pinned path).
 */
export function checkImageUrl(url: unknown): ImageUrlCheck {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, why: 'image_url.url must be a string' };
  if (url.startsWith('data:')) {
    const m = DATA_URL.exec(url);
    if (!m) return { ok: false, why: 'a data URL must be data:image/<type>;base64,...' };
    const b64 = url.slice(m[0].length);
    // Base64 of IMAGE_MAX_BYTES is 4/3 as long; checked before anything is decoded.
    if (b64.length > Math.ceil(IMAGE_MAX_BYTES / 3) * 4)
      return { ok: false, why: `an image may be at most ${IMAGE_MAX_BYTES / 1024 / 1024} MB` };
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return { ok: false, why: 'the data URL is not valid base64' };
    const head = Buffer.from(b64.slice(0, 24), 'base64');
    const real = sniffImage(head);
    if (!real) return { ok: false, why: `the data URL says ${m[1]} but holds no PNG, JPEG, GIF or WebP image` };
    if (real !== m[1]) return { ok: false, why: `the data URL says ${m[1]} but holds ${real}` };
    return { ok: true, kind: 'data' };
  }
  if (url.length > IMAGE_URL_MAX_CHARS)
    return { ok: false, why: `an image URL may be at most ${IMAGE_URL_MAX_CHARS} characters` };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, why: 'image_url.url is neither a data URL nor an absolute https URL' };
  }
  if (parsed.protocol !== 'https:') return { ok: false, why: 'an image URL must be https (or a data URL)' };
  return { ok: true, kind: 'https' };
}

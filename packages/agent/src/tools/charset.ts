// Decodes a fetched page with the charset it declares: the Content-Type header first, then a
// byte-order mark, then a <meta charset> / <meta http-equiv> in the first 1024 bytes (as browsers
// do); UTF-8 when none is given or the label is unknown. TextDecoder knows the WHATWG encodings
// (windows-1251, Shift_JIS, GBK, ...), and replaces bad bytes instead of throwing.

import { TextDecoder } from 'node:util';

function labelFromContentType(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([\w.:-]{1,40})/i.exec(contentType)?.[1];
}

function labelFromBom(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return undefined;
}

function labelFromMeta(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return /<meta\b[^>]{0,512}?charset\s*=\s*["']?\s*([\w.:-]{1,40})/i.exec(head)?.[1];
}

function decoderFor(label: string | undefined): TextDecoder | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label.trim().toLowerCase());
  } catch {
    return undefined;
  }
}

export function decodePage(bytes: Uint8Array, contentType: string): string {
  const bom = labelFromBom(bytes);
  const decoder =
    decoderFor(bom) ??
    decoderFor(labelFromContentType(contentType)) ??
    (contentType.includes('html') || contentType === '' ? decoderFor(labelFromMeta(bytes)) : undefined) ??
    new TextDecoder('utf-8');
  return decoder.decode(bytes);
}

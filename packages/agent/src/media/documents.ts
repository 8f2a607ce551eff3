// A document becomes text for one turn (DESIGN §7.3): PDF, plain text, Markdown, CSV and JSON,
// read in the document pool's threads, cut to a length the model can take with a note saying so.
import { type DocumentReader, sharedDocumentPool, UnreadableDocumentError } from './document-pool.js';

/** Characters of a document given to the model; longer ones are cut, and the user is told. */
export const DOCUMENT_MAX_CHARS = 20_000;
/** Pages of a PDF read at most (a PDF of 100,000 empty pages is a bomb, not a document). */
export const DOCUMENT_MAX_PAGES = 100;

const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown', 'text/csv', 'application/json']);
const TEXT_EXTENSIONS = new Set(['txt', 'md', 'markdown', 'csv', 'json']);
export const READABLE_DOCUMENTS = 'PDF, plain text, Markdown, CSV and JSON';

export type DocumentKind = 'pdf' | 'text';

/** What the bytes are, by their signature first (a PDF called text/plain is still a PDF). */
export function documentKind(
  bytes: Uint8Array,
  fileName: string,
  mimeType: string | undefined,
): DocumentKind | undefined {
  if (bytes.length >= 5 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-') return 'pdf';
  const ext = fileName.includes('.') ? fileName.split('.').pop()!.toLowerCase() : '';
  const type = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!TEXT_TYPES.has(type) && !TEXT_EXTENSIONS.has(ext)) return undefined;
  // Text that is mostly NULs or invalid UTF-8 is a binary file with a text name.
  const head = bytes.subarray(0, 4096);
  if (head.includes(0)) return undefined;
  return 'text';
}

/** Announced before a download: is this a document Berth reads at all? */
export function mayBeDocument(fileName: string, mimeType: string | undefined): boolean {
  const ext = fileName.includes('.') ? fileName.split('.').pop()!.toLowerCase() : '';
  const type = (mimeType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/pdf' || ext === 'pdf' || TEXT_TYPES.has(type) || TEXT_EXTENSIONS.has(ext);
}

export interface DocumentText {
  text: string;
  /** What was read when only part was ("the first 20000 characters", "the first 100 of 400 pages"). */
  cut?: string;
}

export async function readDocument(
  fileName: string,
  mimeType: string | undefined,
  bytes: Uint8Array,
  pool: DocumentReader = sharedDocumentPool(),
  tenant = '',
): Promise<DocumentText> {
  const kind = documentKind(bytes, fileName, mimeType);
  if (!kind) throw new UnreadableDocumentError(`it is not a ${READABLE_DOCUMENTS} file`);
  const read = await pool.read(kind, bytes, { maxChars: DOCUMENT_MAX_CHARS, maxPages: DOCUMENT_MAX_PAGES }, tenant);
  const text = read.text.trim();
  if (!text) throw new UnreadableDocumentError('it holds no text I can read (a scanned PDF has only pictures)');
  return read.truncated ? { text, cut: read.truncated } : { text };
}

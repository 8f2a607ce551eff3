// A document read into a user turn, the same on every channel: its text (and what was cut, said
// to the model and the user), the placeholder the history keeps, or a refusal in the user's words
// when the reader cannot read it. The channel has fetched the bytes and checked the kind.
import { readDocument } from './documents.js';
import { type DocumentReader, sharedDocumentPool, UnreadableDocumentError } from './document-pool.js';
import { MediaRefusal } from './refusal.js';

export interface DocumentPart {
  text: string;
  stored: string;
  notice?: string;
}

/** The channel's own sentences, filled by its own catalogue. */
export interface DocumentWords {
  unreadable(why: string): string;
  cut(what: string): string;
}

export const withCaption = (tag: string, caption: string | undefined) => (caption ? `${tag} ${caption}` : tag);

export async function documentPart(
  doc: { name: string; mimeType: string | undefined; bytes: Uint8Array; caption?: string },
  deps: { documents?: DocumentReader; tenant: string },
  words: DocumentWords,
): Promise<DocumentPart> {
  let read: Awaited<ReturnType<typeof readDocument>>;
  try {
    read = await readDocument(doc.name, doc.mimeType, doc.bytes, deps.documents ?? sharedDocumentPool(), deps.tenant);
  } catch (err) {
    if (err instanceof UnreadableDocumentError) throw new MediaRefusal(words.unreadable(err.message));
    throw err;
  }
  const notice = read.cut && words.cut(read.cut);
  const tag = `[document ${doc.name}]`;
  return {
    text: [doc.caption ?? '', tag, read.text, notice ? `[${notice}]` : ''].filter(Boolean).join('\n\n'),
    stored: withCaption(tag, doc.caption),
    ...(notice ? { notice } : {}),
  };
}

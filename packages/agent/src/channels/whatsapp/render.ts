// The model's Markdown as WhatsApp text (DESIGN §9.1): *bold* _italic_ ~strike~ `code`, ``` blocks
// in monospace, "> " quotes, "- " and "1. " lists, headings as bold lines, tables as aligned
// monospace blocks; a link shows its address after its text (WhatsApp links bare addresses
// itself), so no address is lost. Parts of at most 4,096 characters (the Cloud API's limit for a
// text body), never cutting a character or leaving a monospace block open. Pure, table-tested
// (test/channel-render.test.ts).
import { type InlineRender, inlineRenderer, type Link, plainRenderer } from '../markdown/inline.js';
import { decodeEntities, parseMarkdown, SCRIPT_LINK } from '../markdown/parse.js';
import { type TextBlockStyle, textBlocks, wrapMark } from '../markdown/plain-text.js';
import { type Block, packAnswer } from '../markdown/split.js';

export const WHATSAPP_MAX_MESSAGE = 4096;

/** The answer as WhatsApp messages, in order; never none (the Cloud API refuses an empty body). */
export function renderWhatsApp(markdown: string, max = WHATSAPP_MAX_MESSAGE): string[] {
  return packAnswer(whatsAppBlocks(markdown), markdown, max);
}

/** The answer's blocks as WhatsApp shows them, before they are packed into parts. */
export function whatsAppBlocks(markdown: string): Block[] {
  return textBlocks(parseMarkdown(markdown), WHATSAPP);
}

/** "text (address)", the address alone when it is the text, the text alone for a script link. */
function linkText(l: Link, label: (l: Link) => string): string {
  const href = decodeEntities(l.href);
  const shown = label(l);
  if (SCRIPT_LINK.test(href)) return shown;
  if (!shown.trim() || shown.trim() === href || shown.trim() === href.replace(/^mailto:/i, '')) return href;
  return `${shown} (${href})`;
}

const labelled = (render: InlineRender) => (l: Link) => (l.type === 'link' ? render(l.tokens) : decodeEntities(l.text));

const inline = inlineRenderer({
  // WhatsApp has no escape: the model's text goes as it is.
  escape: (text) => text,
  strong: (inner) => wrapMark('*', inner),
  em: (inner) => wrapMark('_', inner),
  del: (inner) => wrapMark('~', inner),
  codespan: (code) => `\`${code}\``,
  link: (l, inline) => linkText(l, labelled(inline)),
});

/** Inline tokens as plain text (table cells go in a monospace block, where nothing is formatted). */
const plain = plainRenderer(
  (l, plain) => linkText(l, labelled(plain)),
  (t, text) => (t.type === 'text' || t.type === 'codespan' || t.type === 'escape' ? decodeEntities(text) : text),
);

const WHATSAPP: TextBlockStyle = {
  inline,
  plain,
  escape: (text) => text,
  heading: (_, inner) => wrapMark('*', inner),
  // WhatsApp has no languages: the fence alone marks the monospace block.
  // A run of backticks in the code would end the block early: a zero-width space breaks it.
  code: (body) => ({ kind: 'code', open: '```\n', body: body.replace(/`(?=`)/g, '`\u200b'), close: '\n```' }),
  table: (body) => ({ kind: 'code', open: '```\n', body, close: '\n```' }),
  listIndent: '   ',
};

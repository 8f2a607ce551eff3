// Markdown in, Telegram parts out.
import { escapeHtml } from './escape.js';
import { markdownToBlocks } from './markdown-html.js';
import { splitHtml, TELEGRAM_MAX_MESSAGE } from './split.js';

export { htmlToPlain } from './escape.js';
export { markdownToHtml } from './markdown-html.js';
export { splitMessage, TELEGRAM_MAX_MESSAGE } from './split.js';

/** What an answer with no text at all is sent as: Telegram refuses an empty message. */
export const EMPTY_ANSWER = '…';

/**
 * The model's Markdown as HTML parts for sendMessage with parse_mode "HTML", each ≤ `max`, and
 * never none: Markdown that renders to nothing a reader sees (an empty code block, a lone "#")
 * goes as the model's own text, and an answer of only blanks as EMPTY_ANSWER, so every answer
 * reaches the chat (DESIGN §9.4).
 */
export function renderParts(markdown: string, max = TELEGRAM_MAX_MESSAGE): string[] {
  const parts = renderBlocks(markdown, max);
  if (parts.length) return parts;
  const raw = markdown.trim();
  return splitHtml([escapeHtml(raw || EMPTY_ANSWER)], max);
}

/** The Markdown's rendered parts, possibly none (a preview shows nothing rather than raw fences). */
export function renderBlocks(markdown: string, max = TELEGRAM_MAX_MESSAGE): string[] {
  return splitHtml(markdownToBlocks(markdown), max);
}

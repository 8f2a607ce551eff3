// Markdown in, Telegram parts out.
import { markdownToBlocks } from './markdown-html.js';
import { splitHtml, TELEGRAM_MAX_MESSAGE } from './split.js';

export { htmlToPlain } from './escape.js';
export { markdownToHtml } from './markdown-html.js';
export { splitMessage, TELEGRAM_MAX_MESSAGE } from './split.js';

/** The model's Markdown as HTML parts for sendMessage with parse_mode "HTML", each ≤ `max`. */
export function renderParts(markdown: string, max = TELEGRAM_MAX_MESSAGE): string[] {
  return splitHtml(markdownToBlocks(markdown), max);
}

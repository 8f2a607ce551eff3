// What a reader sees while an answer is being written: the answer so far, rendered like the final
// one (the part being written, when it has grown past one message), and the running tool's line.
import { escapeHtml } from './escape.js';
import { renderBlocks, TELEGRAM_MAX_MESSAGE } from './index.js';

/** The tool line shown under the text, e.g. "🌐 Reading example.com…". */
export const toolLine = (emoji: string, label: string) => `${emoji} ${label}…`;

/** The preview as Telegram HTML, or '' when there is nothing to show yet. */
export function previewHtml(text: string, tool?: string, max = TELEGRAM_MAX_MESSAGE): string {
  const line = tool ? `<i>${escapeHtml(tool)}</i>` : '';
  const room = max - (line ? line.length + 2 : 0);
  const parts = text.trim() ? renderBlocks(text, room) : [];
  const body = parts.at(-1) ?? '';
  return body && line ? `${body}\n\n${line}` : body || line;
}

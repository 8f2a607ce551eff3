// Telegram's HTML wants exactly these three escaped in text, and the quote in attribute values.
export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

/** The text a reader sees in a part rendered by markdown-html.ts (for the plain-text fallback). */
export function htmlToPlain(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

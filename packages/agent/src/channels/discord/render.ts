// The model's Markdown as Discord Markdown (DESIGN §9.1): **bold** *italic* ~~strike~~ `code`,
// fenced code blocks with their language, "#"/"##"/"###" headings (deeper ones bold), "> " quotes,
// lists, tables as aligned code blocks, [text](address) links. Characters Discord would read as
// formatting in the model's plain text are escaped with a backslash, so they show as written.
// Parts of at most 2,000 characters (a message's limit); a code block is never split open: a long
// one is closed and opened again with its language. Pure, table-tested (test/channel-render.test.ts).
import { type InlineRender, inlineRenderer, type Link, plainRenderer } from '../markdown/inline.js';
import { CODE_LANG, decodeEntities, parseMarkdown, SCRIPT_LINK } from '../markdown/parse.js';
import { type TextBlockStyle, textBlocks, wrapMark } from '../markdown/plain-text.js';
import { type Block, packAnswer } from '../markdown/split.js';

export const DISCORD_MAX_MESSAGE = 2000;
const SAFE_LINK = /^https?:\/\//i;

/** The answer as Discord messages, in order; never none (Discord refuses an empty message). */
export function renderDiscord(markdown: string, max = DISCORD_MAX_MESSAGE): string[] {
  return packAnswer(discordBlocks(markdown), escapeDiscord(markdown.trim()), max);
}

/** The answer's blocks as Discord shows them, before they are packed into parts. */
export function discordBlocks(markdown: string): Block[] {
  return textBlocks(parseMarkdown(markdown), DISCORD);
}

/** The model's plain text as Discord shows it: its formatting characters escaped. */
export function escapeDiscord(s: string): string {
  return s.replace(/([\\*_~`|<>#[\]()-])/g, '\\$1');
}

/**
 * Code with its own ``` would close (or open) a fence early: a zero-width space between backticks
 * keeps every run literal, as it shows.
 */
export const unfenced = (code: string) => code.replace(/`(?=`)/g, '`\u200b');

function codeFence(body: string, lang?: string): Block {
  const l = lang?.trim() && CODE_LANG.test(lang.trim()) ? lang.trim() : '';
  return { kind: 'code', open: `\`\`\`${l}\n`, body: unfenced(body), close: '\n```' };
}

function link(l: Link, inline: InlineRender): string {
  const href = decodeEntities(l.href);
  const shown = l.type === 'link' ? inline(l.tokens) : escapeDiscord(decodeEntities(l.text));
  if (SCRIPT_LINK.test(href)) return shown;
  if (!shown.trim() || plain([l]) === href) return SAFE_LINK.test(href) ? href : escapeDiscord(href);
  // Masked links to http(s) only; another address is shown after its text.
  return SAFE_LINK.test(href)
    ? `[${shown}](${href.replace(/[()\s]/g, encodeURIComponent)})`
    : `${shown} (${escapeDiscord(href)})`;
}

const inline = inlineRenderer({
  escape: escapeDiscord,
  strong: (inner) => wrapMark('**', inner),
  em: (inner) => wrapMark('*', inner),
  del: (inner) => wrapMark('~~', inner),
  // A code span holding a backtick needs a longer fence (and a space before an edge backtick);
  // one holding a fence would open a code block: a zero-width space keeps it literal.
  codespan: (code) => (code.includes('`') ? `\`\` ${unfenced(code)} \`\`` : `\`${code}\``),
  link,
});

/** Inline tokens as plain text (table cells go in a code block, where nothing is formatted). */
const plain = plainRenderer(
  (l, plain) => {
    const href = decodeEntities(l.href);
    const shown = l.type === 'link' ? plain(l.tokens) : decodeEntities(l.text);
    return SCRIPT_LINK.test(href) ? shown : !shown || shown === href ? href : `${shown} (${href})`;
  },
  (_, text) => decodeEntities(text),
);

const DISCORD: TextBlockStyle = {
  inline,
  plain,
  escape: escapeDiscord,
  heading: (depth, inner) => (inner ? (depth <= 3 ? `${'#'.repeat(depth)} ${inner}` : `**${inner}**`) : null),
  code: codeFence,
  table: (body) => codeFence(body),
  listIndent: '  ',
};

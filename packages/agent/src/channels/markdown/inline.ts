// Inline tokens (the words of a paragraph, a heading, a list item, a table cell) as a channel
// writes them. The walk over marked's tree is the same for every channel; what differs is how the
// model's text is escaped, how bold, italic and strike are marked, and how a code span or a link
// is written, so each channel's renderer names only those (telegram/render/markdown-html.ts,
// whatsapp/render.ts, discord/render.ts). Pure.
import { decodeEntities, type Token, type Tokens } from './parse.js';

export type Link = Tokens.Link | Tokens.Image;
/** Inline tokens as one string; absent tokens are none. */
export type InlineRender = (tokens: Token[] | undefined) => string;

/** What a channel's markup writes for each inline token. */
export interface InlineStyle {
  /** The model's own text (entities already decoded) as the channel shows it literally. */
  escape(text: string): string;
  strong(inner: string): string;
  em(inner: string): string;
  del(inner: string): string;
  /** A code span's text, never empty. */
  codespan(code: string): string;
  /** A link or an image; `inline` renders a link's own tokens in the same style. */
  link(l: Link, inline: InlineRender): string;
}

/** The inline renderer for one channel's markup. */
export function inlineRenderer(style: InlineStyle): InlineRender {
  const inline: InlineRender = (tokens) => {
    if (!tokens) return '';
    let out = '';
    for (const t of tokens) out += one(t);
    return out;
  };
  const one = (t: Token): string => {
    switch (t.type) {
      case 'text': {
        const tt = t as Tokens.Text;
        return tt.tokens ? inline(tt.tokens) : style.escape(decodeEntities(tt.text));
      }
      case 'escape':
        return style.escape((t as Tokens.Escape).text);
      case 'strong':
        return style.strong(inline((t as Tokens.Strong).tokens));
      case 'em':
        return style.em(inline((t as Tokens.Em).tokens));
      case 'del':
        return style.del(inline((t as Tokens.Del).tokens));
      case 'codespan': {
        const code = (t as Tokens.Codespan).text;
        return code ? style.codespan(code) : '';
      }
      case 'br':
        return '\n';
      case 'link':
      case 'image':
        return style.link(t as Link, inline);
      case 'html':
        return style.escape((t as Tokens.HTML).text);
      default:
        return 'text' in t && typeof t.text === 'string' ? style.escape(t.text) : '';
    }
  };
  return inline;
}

/**
 * Inline tokens as the text a reader sees, with no markup (a table cell goes in a monospace block,
 * where nothing is formatted): a line break is a space, `link` writes a link or an image (`plain`
 * renders a link's own tokens), `leaf` a token's own text (channels differ on which they decode).
 */
export function plainRenderer(
  link: (l: Link, plain: InlineRender) => string,
  leaf: (t: Token, text: string) => string,
): InlineRender {
  const plain: InlineRender = (tokens) => {
    if (!tokens) return '';
    let out = '';
    for (const t of tokens) {
      if (t.type === 'br') out += ' ';
      else if (t.type === 'link' || t.type === 'image') out += link(t as Link, plain);
      else if ('tokens' in t && Array.isArray(t.tokens)) out += plain(t.tokens);
      else if ('text' in t && typeof t.text === 'string') out += leaf(t, t.text);
    }
    return out;
  };
  return plain;
}

// A bot message as Telegram shows it. Telegram's HTML has a handful of tags (b i u s code pre a
// blockquote tg-spoiler); only those become elements, only http(s)/tg links stay links, and
// everything else is text. No HTML string ever reaches the DOM, so a hostile reply runs nothing.
import type { ReactNode } from 'react';

const TAGS: Record<string, string> = {
  b: 'strong',
  strong: 'strong',
  i: 'em',
  em: 'em',
  u: 'u',
  ins: 'u',
  s: 's',
  strike: 's',
  del: 's',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
  'tg-spoiler': 'span',
};

function render(node: Node, key: number): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const children = [...el.childNodes].map(render);
  const tag = el.tagName.toLowerCase();
  if (tag === 'a') {
    const href = el.getAttribute('href') ?? '';
    return /^(https?:|tg:)/i.test(href) ? (
      <a key={key} href={href} rel="noreferrer noopener nofollow" target="_blank">
        {children}
      </a>
    ) : (
      <span key={key}>{children}</span>
    );
  }
  const As = TAGS[tag];
  if (!As) return <span key={key}>{children}</span>;
  if (tag === 'tg-spoiler')
    return (
      <span key={key} className="spoiler">
        {children}
      </span>
    );
  const Tag = As as 'strong';
  return <Tag key={key}>{children}</Tag>;
}

export function TelegramHtml({ text, parseMode }: { text: string; parseMode: string | null }) {
  if (parseMode?.toUpperCase() !== 'HTML') return <span className="pre-line">{text}</span>;
  const doc = new DOMParser().parseFromString(`<body>${text}</body>`, 'text/html');
  return <span className="pre-line">{[...doc.body.childNodes].map(render)}</span>;
}

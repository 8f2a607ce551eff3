// No answer is lost to rendering (DESIGN §9.4): an answer that renders to nothing still reaches
// the chat, links keep their address, the model's HTML entities show as characters (decoded once),
// and no split cuts a character or an emoji in two. What the reader sees is checked through
// testkit's copy of Telegram's HTML parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseTelegramHtml } from '@berth/testkit';
import { markdownToHtml, renderParts, splitMessage } from '../src/channels/telegram/render/index.js';
import { answersOf, LONE_SURROGATE, nearTheEdge } from './helpers/answers.js';

/** The text a reader sees in each part Telegram would show. */
const seen = (parts: string[]) =>
  parts.map((p) => {
    const verdict = parseTelegramHtml(p);
    assert.ok(verdict.ok, `Telegram accepts ${p}`);
    return verdict.text;
  });

// [name, the model's answer, what the reader sees, message by message]
const NOTHING_RENDERED: Array<[string, string, string[]]> = [
  ['empty code block', '```\n```', ['```\n```']],
  ['empty code block with a language', '```js\n```', ['```js\n```']],
  ['code block of blanks', '```\n   \n```', ['```\n   \n```']],
  ['the raw text is escaped', '```a<b&c\n```', ['```a<b&c\n```']],
  ['a lone heading mark', '#', ['#']],
  ['a link definition only', '[docs]: https://e.com/d', ['[docs]: https://e.com/d']],
  ['empty answer', '', ['…']],
  ['only blanks', '  \n\t \n', ['…']],
];

for (const [name, md, want] of NOTHING_RENDERED) {
  test(`nothing rendered is still an answer: ${name}`, () => {
    assert.deepEqual(seen(renderParts(md)), want);
  });
}

test('nothing rendered is still an answer: a huge empty-looking answer is split, every part within 4,096', () => {
  const md = `\`\`\`${'x'.repeat(5000)}\n\`\`\``;
  const parts = renderParts(md);
  assert.equal(parts.length, 2);
  for (const p of parts) assert.ok(p.length <= 4096);
  assert.equal(seen(parts).join(''), md);
});

// [name, Markdown, HTML]
const HTML: Array<[string, string, string]> = [
  // Links keep their address everywhere.
  [
    'link in a table cell',
    '| site | n |\n|---|---|\n| [docs](https://e.com/d) | 1 |',
    '<pre>site                   │ n\n───────────────────────┼──\ndocs (https://e.com/d) │ 1</pre>',
  ],
  [
    'bare URL in a table cell shown once',
    '| u |\n|---|\n| https://e.com |',
    '<pre>u\n─────────────\nhttps://e.com</pre>',
  ],
  [
    'mailto link in a table cell',
    '| who |\n|---|\n| [Ann](mailto:a@b.co) |',
    '<pre>who\n────────────\nAnn (a@b.co)</pre>',
  ],
  [
    'image in a table cell',
    '| p |\n|---|\n| ![cat](https://e.com/c.png) |',
    '<pre>p\n─────────────────────────\ncat (https://e.com/c.png)</pre>',
  ],
  ['mailto link', 'write [to us](mailto:help@e.com)', 'write to us (help@e.com)'],
  ['mailto link with a query', '[us](mailto:help@e.com?subject=Hi)', 'us (help@e.com?subject=Hi)'],
  ['tel link', 'call [the desk](tel:+4930123456)', 'call the desk (+4930123456)'],
  ['mailto link whose text is the address', '[help@e.com](mailto:help@e.com)', 'help@e.com'],
  ['bare e-mail address', 'mail help@e.com', 'mail help@e.com'],
  ['relative link keeps its address', '[guide](docs/guide.md)', 'guide (docs/guide.md)'],
  ['script link stays text only', '[x](javascript:alert(1))', 'x'],
  ['link address with an entity', '[s](https://e.com/?a=1&amp;b=2)', '<a href="https://e.com/?a=1&amp;b=2">s</a>'],
  // Entities decoded once, then escaped for Telegram.
  ['named entities', '&copy; 2024 &mdash; a&nbsp;b', '© 2024 — a\u00a0b'],
  ['numeric entities', '&#8212; &#x2014;', '— —'],
  ['&amp; is one ampersand', 'Q&amp;A', 'Q&amp;A'],
  ['never decoded twice', '&amp;copy; &#38;copy; &amp;amp;', '&amp;copy; &amp;copy; &amp;amp;'],
  ['a decoded < is text, not a tag', '&lt;b&gt;bold&lt;/b&gt;', '&lt;b&gt;bold&lt;/b&gt;'],
  ['unknown or unterminated entities as written', '&bogus; ?a=1&not=2', '&amp;bogus; ?a=1&amp;not=2'],
  ['an escaped ampersand stays literal', '\\&copy;', '&amp;copy;'],
  [
    'entities in code stay literal',
    '`&copy;`\n\n```\n&nbsp;\n```',
    '<code>&amp;copy;</code>\n\n<pre><code>&amp;nbsp;</code></pre>',
  ],
  [
    'entities in a heading, a link text and a cell',
    '# A &amp; B\n\n[&copy;](https://e.com)\n\n| &euro; |\n|---|\n| 5 |',
    '<b>A &amp; B</b>\n\n<a href="https://e.com">©</a>\n\n<pre>€\n─\n5</pre>',
  ],
];

for (const [name, md, html] of HTML) {
  test(`lossless render: ${name}`, () => {
    const out = markdownToHtml(md);
    assert.equal(out, html);
    assert.ok(parseTelegramHtml(out).ok, `Telegram accepts ${out}`);
  });
}

const FAMILY = '👨‍👩‍👧‍👦'; // 11 UTF-16 units, one grapheme
const FLAG = '🇩🇪'; // two regional indicators, 4 units, one grapheme

// [name, text, parts]: the text straddles the 4,096-unit boundary with a character
const SPLITS: Array<[string, string, string[]]> = [
  ['emoji across the boundary', `${'a'.repeat(4095)}😀b`, ['a'.repeat(4095), '😀b']],
  ['ZWJ family across the boundary', `${'a'.repeat(4090)}${FAMILY}b`, ['a'.repeat(4090), `${FAMILY}b`]],
  ['flag across the boundary', `${'a'.repeat(4094)}${FLAG}`, ['a'.repeat(4094), FLAG]],
  ['accent across the boundary', `${'a'.repeat(4095)}e\u0301b`, ['a'.repeat(4095), 'e\u0301b']],
];

for (const [name, text, want] of SPLITS) {
  test(`plain split: ${name}`, () => {
    assert.deepEqual(splitMessage(text), want);
  });
  test(`HTML split: ${name}`, () => {
    assert.deepEqual(seen(renderParts(text)), want);
  });
}

test('HTML split: an emoji right after a tag, with too little room left, moves whole to the next part', () => {
  const parts = renderParts(`**${'a'.repeat(4080)}**${FAMILY}b`);
  assert.deepEqual(seen(parts), ['a'.repeat(4080), `${FAMILY}b`]);
});

// A "character" longer than a whole message (a letter under 5,000 accents) cannot stay whole:
// it is cut between code points, and no part is longer than Telegram takes.
test('split: a grapheme longer than a message is cut between code points, parts within 4,096', () => {
  const zalgo = `ok ${'e'}${'\u0301'.repeat(5000)}😀${'\u0301'.repeat(3000)}`;
  const plain = splitMessage(zalgo);
  const html = renderParts(zalgo);
  for (const parts of [plain, html]) {
    assert.ok(parts.length >= 2);
    for (const p of parts) {
      assert.ok(p.length <= 4096, `part of ${p.length}`);
      assert.doesNotMatch(p, LONE_SURROGATE);
    }
  }
  // Only the blank at the first cut is dropped.
  const bare = zalgo.replace(' ', '');
  assert.ok(plain.join('') === bare, 'the plain parts hold the whole text');
  assert.ok(seen(html).join('') === bare, 'the HTML parts show the whole text');
});

// Text that renders to little or nothing, long runs and every kind of multi-unit character.
const piece = fc.constantFrom(
  ...'ab \n\n*_`#>-|[]()!<&;'.split(''),
  '```',
  '```js\n',
  '\n```\n',
  '&copy;',
  '&amp;',
  '&#8212;',
  '[x](mailto:a@b.c)',
  '| [y](https://e.com) |\n|---|\n',
  '😀',
  FAMILY,
  FLAG,
  'e\u0301',
  '\t',
);
// Those, and the same after a run that ends within a few units of the first part's end.
const anyAnswer = fc.oneof(answersOf(piece), nearTheEdge(piece, 4096));

test('property: every answer reaches the chat, in parts within 4,096 that split no surrogate pair', () => {
  fc.assert(
    fc.property(anyAnswer, (md) => {
      const parts = renderParts(md);
      assert.ok(parts.length > 0, 'at least one part');
      for (const part of parts) {
        assert.ok(part.length <= 4096, `part of ${part.length}`);
        assert.doesNotMatch(part, LONE_SURROGATE);
        const verdict = parseTelegramHtml(part);
        assert.ok(verdict.ok, JSON.stringify(verdict));
        assert.ok(verdict.text.trim().length > 0, 'no empty part');
      }
    }),
    { numRuns: 300 },
  );
});

test('property: the plain splitter keeps every character, within 4,096, no pair split', () => {
  fc.assert(
    fc.property(anyAnswer, (text) => {
      const parts = splitMessage(text);
      if (text.trim()) assert.ok(parts.length > 0);
      for (const part of parts) {
        assert.ok(part.length <= 4096, `part of ${part.length}`);
        assert.doesNotMatch(part, LONE_SURROGATE);
      }
      // Only blanks at a cut are dropped.
      assert.equal(parts.join('').replace(/\s/g, ''), text.replace(/\s/g, ''));
    }),
    { numRuns: 300 },
  );
});

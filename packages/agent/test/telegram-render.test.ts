// The model's Markdown as Telegram HTML: a table of cases, the splitting rules, and a property:
// whatever the Markdown, every part passes Telegram's HTML parser (testkit's strict copy of it)
// and fits one message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseTelegramHtml } from '@berth/testkit';
import { htmlToPlain, markdownToHtml, renderParts } from '../src/channels/telegram/render/index.js';

const CASES: Array<[string, string, string]> = [
  ['bold, italics, strike', '**bold** _it_ ~~gone~~', '<b>bold</b> <i>it</i> <s>gone</s>'],
  ['escaping', 'a < b && c > d', 'a &lt; b &amp;&amp; c &gt; d'],
  ['inline code keeps its text', 'run `x<y && z`', 'run <code>x&lt;y &amp;&amp; z</code>'],
  ['heading bold', '## Plan <A>', '<b>Plan &lt;A&gt;</b>'],
  [
    'fenced block with language',
    '```ts\nconst a = b < c;\n```',
    '<pre><code class="language-ts">const a = b &lt; c;</code></pre>',
  ],
  ['fenced block, odd language dropped', '```a"b\nx\n```', '<pre><code>x</code></pre>'],
  ['link', '[site](https://example.com/?a=1&b="2")', '<a href="https://example.com/?a=1&amp;b=&quot;2&quot;">site</a>'],
  ['tg link', '[me](tg://user?id=1)', '<a href="tg://user?id=1">me</a>'],
  ['javascript link is text', '[x](javascript:alert(1))', 'x'],
  ['bullets', '- one\n- two\n  - deep', '• one\n• two\n   • deep'],
  ['numbers from their start', '3. c\n4. d', '3. c\n4. d'],
  ['tasks', '- [x] done\n- [ ] todo', '• ☑ done\n• ☐ todo'],
  ['blockquote, nested flattened', '> a\n> > b', '<blockquote>a\nb</blockquote>'],
  ['raw HTML shown, not obeyed', '<script>x</script>', '&lt;script&gt;x&lt;/script&gt;'],
  ['table aligned in pre', '| a | b |\n|---|--:|\n| long | 1 |', '<pre>a    │ b\n─────┼──\nlong │ 1</pre>'],
  ['table cell markup flattened', '| **x** |\n|---|\n| `y` |', '<pre>x\n─\ny</pre>'],
  ['image as link', '![cat](https://e.com/c.png)', '<a href="https://e.com/c.png">cat</a>'],
  ['hard break', 'a  \nb', 'a\nb'],
  ['thematic break', '** **', '——————'],
];

for (const [name, md, html] of CASES) {
  test(`render: ${name}`, () => {
    const out = markdownToHtml(md);
    assert.equal(out, html);
    assert.ok(parseTelegramHtml(out).ok, `Telegram accepts ${out}`);
  });
}

test('parts: blocks packed whole, a split only between blocks', () => {
  const para = (n: number) => `Paragraph ${n} ${'word '.repeat(150)}`.trim();
  const md = Array.from({ length: 12 }, (_, i) => para(i)).join('\n\n');
  const parts = renderParts(md);
  assert.ok(parts.length > 1);
  for (const p of parts) {
    assert.ok(p.length <= 4096);
    // Every part starts at a paragraph's beginning.
    assert.match(p, /^Paragraph \d+ /);
  }
  assert.equal(parts.join('\n\n'), markdownToHtml(md));
});

test('parts: a code block that fits is never split, it moves to the next part', () => {
  const code = '```\n' + 'x = 1\n'.repeat(300) + '```';
  const md = `${'intro '.repeat(500)}\n\n${code}`;
  const parts = renderParts(md);
  assert.equal(parts.length, 2);
  assert.match(parts[1]!, /^<pre><code>x = 1\n[\s\S]*<\/code><\/pre>$/);
});

test('parts: a huge code block becomes several closed <pre> blocks, lines whole', () => {
  const lines = Array.from({ length: 1500 }, (_, i) => `line ${i} <&>`);
  const parts = renderParts('```py\n' + lines.join('\n') + '\n```');
  assert.ok(parts.length >= 5);
  for (const p of parts) {
    assert.ok(p.length <= 4096, `part of ${p.length}`);
    assert.match(p, /^<pre><code class="language-py">[\s\S]*<\/code><\/pre>$/);
    assert.ok(parseTelegramHtml(p).ok);
  }
  // Each part ends at a line's end: joined by line breaks, the code is whole.
  assert.equal(parts.map((p) => htmlToPlain(p)).join('\n'), lines.join('\n'));
});

// Found by the property below (seed -626855184): a quote of escaped links is one run without a
// space, which the renderer links whole, so its <a> tag held a 6,000-character URL and every part
// of the cut block opened it again (6,036 characters a part).
test('parts: a link too long to open again in each part is cut as its text, every part within 4,096', () => {
  const md = `> ${'\\[x](https://e.com)a'.repeat(300)}`;
  const parts = renderParts(md);
  assert.ok(parts.length >= 2);
  for (const p of parts) {
    assert.ok(p.length <= 4096, `part of ${p.length}`);
    const verdict = parseTelegramHtml(p);
    assert.ok(verdict.ok, JSON.stringify(verdict));
  }
  // Nothing of the text is lost: the quote's characters, every part's together.
  const shown = parts.map((p) => htmlToPlain(p)).join('');
  assert.equal((shown.match(/e\.com/g) ?? []).length, 300);
});

test('parts: a long paragraph of one word is cut without breaking an entity or an emoji', () => {
  const parts = renderParts(`**${'&😀'.repeat(3000)}**`);
  for (const p of parts) {
    assert.ok(p.length <= 4096);
    const verdict = parseTelegramHtml(p);
    assert.ok(verdict.ok, JSON.stringify(verdict));
    assert.doesNotMatch(p, /&(?!amp;)/);
  }
  assert.equal(parts.map((p) => htmlToPlain(p)).join(''), '&😀'.repeat(3000));
});

// Markdown-ish text: the characters that matter, in runs the lexer finds interesting.
const mdChar = fc.constantFrom(
  ...'ab cd\n\n*_~`#>-|[]()!<>&"\'\\/:1.+=😀é\t'.split(''),
  '```',
  '**',
  '| a | b |\n|---|---|\n',
  '[x](https://e.com)',
  '<b>',
  '</i>',
  '&amp;',
  '- ',
  '1. ',
  '> ',
  '\n```js\n',
);
const markdown = fc.array(mdChar, { maxLength: 400 }).map((a) => a.join(''));
const longMarkdown = fc.tuple(markdown, fc.integer({ min: 1, max: 40 })).map(([s, n]) => s.repeat(n));

// One block longer than a message (a fenced block, a quote, a bold run) that has to be cut inside.
const hugeBlock = fc
  .tuple(
    fc.constantFrom(['```js\n', '\n```'], ['**', '**'], ['> ', ''], ['[', '](https://e.com)'], ['', '']),
    markdown.map((s) => s.replace(/\n\s*\n/g, '\n')),
    fc.integer({ min: 10, max: 300 }),
  )
  .map(([[open, close], body, n]) => open + (body || 'x').repeat(n) + close);

test('property: any Markdown renders to parts Telegram accepts, each within 4,096', () => {
  fc.assert(
    fc.property(fc.oneof(markdown, longMarkdown, hugeBlock), (md) => {
      for (const part of renderParts(md)) {
        assert.ok(part.length <= 4096, `part of ${part.length}`);
        const verdict = parseTelegramHtml(part);
        assert.ok(verdict.ok, `${JSON.stringify(verdict)} for ${JSON.stringify(part.slice(0, 300))}`);
        assert.ok(verdict.text.trim().length > 0, 'no empty part');
      }
    }),
    { numRuns: 400 },
  );
});

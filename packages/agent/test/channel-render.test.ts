// WhatsApp's and Discord's renderers (decision 0033): each from the channel-neutral token tree
// (channels/markdown/parse.ts) into the channel's own formatting, in parts within its limit that
// never cut a character and never leave a code block open.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { renderWhatsApp, WHATSAPP_MAX_MESSAGE } from '../src/channels/whatsapp/render.js';
import { DISCORD_MAX_MESSAGE, renderDiscord } from '../src/channels/discord/render.js';
import { answersOf, LONE_SURROGATE, nearTheEdge } from './helpers/answers.js';

const FAMILY = '👨‍👩‍👧';
const FLAG = '🇩🇪';

// [name, Markdown, WhatsApp's text]
const WHATSAPP: Array<[string, string, string]> = [
  ['bold, italic, strike', '**bold** *it* ~~gone~~', '*bold* _it_ ~gone~'],
  ['heading as a bold line', '# Title\n\ntext', '*Title*\n\ntext'],
  ['inline code', 'run `npm test` now', 'run `npm test` now'],
  ['code block in monospace, no language', '```js\nlet a = 1;\n```', '```\nlet a = 1;\n```'],
  ['lists', '- one\n- two\n\n1. first\n2. second', '- one\n- two\n\n1. first\n2. second'],
  ['quote', '> wise words', '> wise words'],
  ['link keeps its address', '[docs](https://e.com/d)', 'docs (https://e.com/d)'],
  ['a bare link once', 'see https://e.com', 'see https://e.com'],
  ['script link drops its address', '[x](javascript:alert(1))', 'x'],
  ['entities decoded once', 'a &amp; b &copy;', 'a & b ©'],
  ['table as an aligned monospace block', '| a | bb |\n|---|---|\n| 1 | 2 |', '```\na │ bb\n──┼───\n1 │ 2\n```'],
  ['nothing rendered is still an answer', '```\n```', '```\n```'],
  ['empty answer', '', '…'],
];

for (const [name, md, want] of WHATSAPP) {
  test(`WhatsApp: ${name}`, () => {
    assert.deepEqual(renderWhatsApp(md), [want]);
  });
}

// [name, Markdown, Discord's Markdown]
const DISCORD: Array<[string, string, string]> = [
  ['bold, italic, strike', '**bold** *it* ~~gone~~', '**bold** *it* ~~gone~~'],
  ['headings', '# One\n\n#### Four', '# One\n\n**Four**'],
  ['code block keeps its language', '```py\nprint(1)\n```', '```py\nprint(1)\n```'],
  ['a fence inside code cannot close it', '````\na ``` b\n````', '```\na `\u200b`\u200b` b\n```'],
  ['inline code with a backtick', '``a`b``', '`` a`b ``'],
  ['masked link', '[docs](https://e.com/d)', '[docs](https://e.com/d)'],
  ['other schemes show their address', '[Ann](mailto:a@b.co)', 'Ann (mailto:a@b.co)'],
  ['plain text is escaped', 'a \\*star\\* and 2 \\< 3', 'a \\*star\\* and 2 \\< 3'],
  ['lists', '- one\n  - nested', '- one\n  - nested'],
  ['quote', '> wise', '> wise'],
  ['table as a code block', '| a | b |\n|---|---|\n| 1 | 2 |', '```\na │ b\n──┼──\n1 │ 2\n```'],
  ['empty answer', '  ', '…'],
];

for (const [name, md, want] of DISCORD) {
  test(`Discord: ${name}`, () => {
    assert.deepEqual(renderDiscord(md), [want]);
  });
}

test('Discord: a long code block is closed and opened again with its language in every part', () => {
  const lines = Array.from({ length: 300 }, (_, i) => `print("line ${i}")`);
  const parts = renderDiscord(`intro\n\n\`\`\`python\n${lines.join('\n')}\n\`\`\`\n\nafter`);
  assert.ok(parts.length > 2);
  for (const [i, p] of parts.entries()) {
    assert.ok(p.length <= DISCORD_MAX_MESSAGE, `part ${i} of ${p.length}`);
    const fences = p.match(/```/g)?.length ?? 0;
    assert.equal(fences % 2, 0, `part ${i} leaves no block open`);
  }
  for (const p of parts.slice(1, -1)) assert.match(p, /^```python\n[\s\S]*\n```$/);
  // Cut between lines: every line arrives whole, once, in order.
  const seen = parts.join('\n').match(/print\("line \d+"\)/g);
  assert.deepEqual(seen, lines);
});

test('WhatsApp: a long answer in parts of at most 4,096, cut between paragraphs', () => {
  const para = 'word '.repeat(150).trim();
  const parts = renderWhatsApp(Array.from({ length: 12 }, () => para).join('\n\n'));
  assert.ok(parts.length >= 2);
  for (const p of parts) {
    assert.ok(p.length <= WHATSAPP_MAX_MESSAGE);
    assert.ok(p.startsWith('word') && p.endsWith('word'), 'no paragraph cut');
  }
});

test('a run of backticks is never cut in two (half a fence in each part would open a block in both)', () => {
  const md = `${'a'.repeat(10)}\`\`\`${'b'.repeat(10)}`;
  assert.deepEqual(renderWhatsApp(md, 12), ['aaaaaaaaaa', '```bbbbbbbbb', 'b']);
});

const piece = fc.constantFrom(
  ...'ab \n\n*_~`#>-|[]()!<&;'.split(''),
  '**',
  '```',
  '```js\n',
  '\n```\n',
  '&amp;',
  '[x](https://e.com)',
  '| y |\n|---|\n',
  '😀',
  FAMILY,
  FLAG,
  'e\u0301',
);
const answer = answersOf(piece);

/** The characters of a rendered answer, blanks left out (a cut may drop those, nothing else). */
const chars = (s: string) => [...s.replace(/[\s\u200b]/g, '')];

/** Whether every character of `whole` is in `parts`, in order: the cuts add fences, they lose nothing. */
function keepsAll(whole: string, parts: string[]): boolean {
  const have = chars(parts.join(''));
  let i = 0;
  for (const c of chars(whole)) {
    while (i < have.length && have[i] !== c) i++;
    if (i++ >= have.length) return false;
  }
  return true;
}

for (const [name, render, max] of [
  ['WhatsApp', renderWhatsApp, WHATSAPP_MAX_MESSAGE],
  ['Discord', renderDiscord, DISCORD_MAX_MESSAGE],
] as const) {
  test(`property (${name}): parts within ${max}, no surrogate pair split, no code block open, nothing lost`, () => {
    fc.assert(
      fc.property(fc.oneof(answer, nearTheEdge(piece, max)), (md) => {
        const parts = render(md, max);
        assert.ok(parts.length > 0, 'at least one part');
        for (const part of parts) {
          assert.ok(part.length <= max, `part of ${part.length}`);
          assert.doesNotMatch(part, LONE_SURROGATE);
          assert.ok(part.trim().length > 0, 'no empty part');
        }
        // The same answer unsplit: the parts together show all of it.
        const whole = render(md, Number.POSITIVE_INFINITY);
        assert.equal(whole.length, 1);
        assert.ok(keepsAll(whole[0]!, parts), 'the parts show the whole answer');
      }),
      { numRuns: 200 },
    );
  });
}

test('property (Discord): every part closes the code blocks it opens', () => {
  fc.assert(
    fc.property(answer, (md) => {
      for (const part of renderDiscord(md)) assert.equal((part.match(/```/g)?.length ?? 0) % 2, 0, part);
    }),
    { numRuns: 200 },
  );
});

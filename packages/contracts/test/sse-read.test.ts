// The SSE reader keeps multi-byte characters whole whichever byte the network splits them at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSse } from '../src/index.js';

const TEXTS = [
  'Привет, мир',
  '你好，世界。日本語のテキスト',
  'emoji 👋🏽 family 👨‍👩‍👧 flag 🇺🇦',
  'mixed: Grüße — 東京 — 🚀',
];

function eventBytes(text: string) {
  return Buffer.from(
    `event: message\ndata: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\ndata: [DONE]\n\n`,
  );
}

async function* pieces(bytes: Buffer, cuts: number[]) {
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
}

async function collect(bytes: Buffer, cuts: number[]) {
  const out: string[] = [];
  for await (const e of readSse(pieces(bytes, cuts))) out.push(e.data);
  return out;
}

for (const text of TEXTS) {
  test(`every split offset of "${text}" decodes exactly`, async () => {
    const bytes = eventBytes(text);
    for (let k = 1; k < bytes.length; k++) {
      const [first, done] = await collect(bytes, [k]);
      assert.equal(JSON.parse(first!).choices[0].delta.content, text, `split at byte ${k}`);
      assert.equal(done, '[DONE]');
    }
  });
}

test('one byte at a time, every character split everywhere at once', async () => {
  for (const text of TEXTS) {
    const bytes = eventBytes(text);
    const [first] = await collect(
      bytes,
      [...Array(bytes.length - 1).keys()].map((i) => i + 1),
    );
    assert.equal(JSON.parse(first!).choices[0].delta.content, text);
  }
});

test('framing: CRLF line ends, comments, multi-line data, a last event with no blank line', async () => {
  const raw = ': keepalive\r\nevent: assistant.tool.progress\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: tail';
  const events = [];
  for await (const e of readSse(pieces(Buffer.from(raw), [3, 20, 41]))) events.push(e);
  assert.deepEqual(events, [{ event: 'assistant.tool.progress', data: '{"a":\n1}' }, { data: 'tail' }]);
});

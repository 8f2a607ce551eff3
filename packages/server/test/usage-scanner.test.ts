// The byok proxy books a streamed reply from the `usage` object on its last SSE event: however the
// worker's bytes are cut into chunks (inside a line, inside a UTF-8 character), the scanner finds
// it, and finds nothing in lines that only mention it in text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UsageScanner } from '../src/billing/usage-scanner.js';

const usage = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };
const stream = Buffer.from(
  [
    `data: ${JSON.stringify({ choices: [{ delta: { content: 'héllo "usage" — 日本' } }] })}`,
    ': keepalive',
    `data: ${JSON.stringify({ choices: [{ delta: {} }], usage })}`,
    'data: [DONE]',
    '',
  ].join('\n\n'),
);

test('an SSE reply: the usage on the last event is found at every cut of the bytes', () => {
  for (let cut = 0; cut <= stream.length; cut++) {
    const s = new UsageScanner(true);
    s.push(stream.subarray(0, cut));
    s.push(stream.subarray(cut));
    assert.deepEqual(s.end(), usage, `cut at byte ${cut}`);
    assert.equal(s.bytes, stream.length);
  }
  const byByte = new UsageScanner(true);
  for (let i = 0; i < stream.length; i++) byByte.push(stream.subarray(i, i + 1));
  assert.deepEqual(byByte.end(), usage);
});

test('an SSE reply without usage, or one whose last line has no newline', () => {
  const none = new UsageScanner(true);
  none.push(Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: '"usage"' } }] })}\n\n`));
  assert.equal(none.end(), undefined);
  const unterminated = new UsageScanner(true);
  unterminated.push(Buffer.from(`data: ${JSON.stringify({ usage })}`));
  assert.deepEqual(unterminated.end(), usage);
});

test('a JSON reply: the top-level usage', () => {
  const s = new UsageScanner(false);
  const body = Buffer.from(JSON.stringify({ choices: [], usage }));
  s.push(body.subarray(0, 10));
  s.push(body.subarray(10));
  assert.deepEqual(s.end(), usage);
});

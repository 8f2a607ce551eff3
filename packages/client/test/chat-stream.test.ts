// The chat stream reader against streams the spec allows but Berth does not send today: event names
// it does not know are opaque metadata (skipped, whatever their data), data that is not JSON is
// skipped, and an error envelope is an error in an unnamed event too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BerthApiError, readChatStream, type ChatStreamEvent } from '@berth/client';

const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content } }] });

async function eventsOf(sse: string): Promise<ChatStreamEvent[]> {
  const bytes = new TextEncoder().encode(sse);
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });
  const out: ChatStreamEvent[] = [];
  for await (const e of readChatStream(body)) out.push(e);
  return out;
}

test('an unknown event name is skipped, even when its data is not JSON or looks like a chunk', async () => {
  const events = await eventsOf(
    `event: assistant.future\ndata: not json at all\n\n` +
      `event: assistant.future\ndata: ${chunk('hidden')}\n\n` +
      `data: ${chunk('Hello')}\n\n` +
      `data: [DONE]\n\n`,
  );
  assert.deepEqual(events, [{ type: 'delta', text: 'Hello' }, { type: 'done' }]);
});

test('data that is not JSON is skipped, and the text around it still arrives', async () => {
  const events = await eventsOf(`data: ${chunk('a')}\n\ndata: {oops\n\ndata: ${chunk('b')}\n\ndata: [DONE]\n\n`);
  assert.deepEqual(events, [{ type: 'delta', text: 'a' }, { type: 'delta', text: 'b' }, { type: 'done' }]);
});

test('an error envelope is an error event, named or not', async () => {
  for (const name of ['event: error\n', '']) {
    const events = await eventsOf(
      `data: ${chunk('Hal')}\n\n${name}data: ${JSON.stringify({ error: { code: 'BAD_GATEWAY', message: 'broke off' } })}\n\n`,
    );
    const last = events.at(-1);
    assert.equal(last?.type, 'error', JSON.stringify(name));
    assert.ok(last?.type === 'error' && last.error instanceof BerthApiError);
    assert.equal(last.error.code, 'BAD_GATEWAY');
    assert.equal(last.error.message, 'broke off');
  }
});

// Model calls never wait for one another's connection (issue 64): 150 chats streaming at once on
// one provider key all reach the provider together; before, the pool per key held them to 64 and
// the rest waited for a stream to end.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { OpenAiCompatibleProvider } from '../src/model/openai-compatible.js';

const CHATS = 150;

test(`${CHATS} streams on one key are all open at the provider at once`, async () => {
  // The provider answers no stream until every one of them has arrived.
  const waiting: ServerResponse[] = [];
  let open = 0;
  let most = 0;
  const server = createServer((req, res) => {
    req.resume();
    open++;
    most = Math.max(most, open);
    res.on('close', () => open--);
    waiting.push(res);
    if (waiting.length === CHATS)
      for (const r of waiting.splice(0)) {
        r.writeHead(200, { 'content-type': 'text/event-stream' });
        r.end(
          'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        );
      }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const providers = [0, 1].map(
    () => new OpenAiCompatibleProvider({ provider: 'fakeai', baseUrl: base, apiKey: 'sk-one-key', timeoutMs: 20_000 }),
  );
  try {
    const answers = await Promise.all(
      Array.from({ length: CHATS }, async (_, i) => {
        let text = '';
        const signal = AbortSignal.timeout(15_000);
        for await (const c of providers[i % 2]!.stream({ model: 'm', messages: [] }, signal)) text += c.content ?? '';
        return text;
      }),
    );
    assert.equal(answers.filter((a) => a === 'hi').length, CHATS);
    assert.equal(most, CHATS);
  } finally {
    for (const p of providers) p.close();
    server.closeAllConnections();
    server.close();
  }
});

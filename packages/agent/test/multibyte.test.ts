// A provider whose stream reaches the agent one byte per network read: every multi-byte character
// is split apart. The agent's answers (plain and streamed, through the official SDK) keep them whole.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type OpenAI from 'openai';
import { startServe } from './helpers/serve.js';
import { openAiClient, streamedText } from './helpers/openai.js';

const TEXT = 'Привет, мир! 你好，世界。 👋🏽 👨‍👩‍👧 🇺🇦';
let server: Server;
let s: Awaited<ReturnType<typeof startServe>>;
let client: OpenAI;

/** Writes each byte of the SSE body in its own macrotask, so the reader sees split characters. */
function byteByByteProvider() {
  return createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-mb', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const body = Buffer.from(
        chunk({ role: 'assistant', content: TEXT.slice(0, 7) }, null) +
          chunk({ content: TEXT.slice(7) }, null) +
          chunk({}, 'stop') +
          'data: [DONE]\n\n',
      );
      for (const byte of body) {
        res.write(Buffer.from([byte]));
        await new Promise((r) => setTimeout(r, 0));
      }
      res.end();
    });
  });
}

before(async () => {
  server = byteByByteProvider();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  s = await startServe({ config: { model: { provider: 'fakeai', baseUrl, modelId: 'm', apiKey: 'sk-x' } } });
  client = openAiClient(s.url);
});
after(async () => {
  await s.close();
  await new Promise((r) => server.close(r));
});

test('a plain answer keeps Cyrillic, CJK and emoji whole', async () => {
  const res = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(res.choices[0]!.message.content, TEXT);
});

test('a streamed answer keeps them whole too', async () => {
  const text = await streamedText(client, 'hi');
  assert.equal(text, TEXT);
  assert.ok(!text.includes('\uFFFD'));
});

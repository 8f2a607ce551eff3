// The chat API with a vision model (DESIGN §7.3): image_url parts as data URLs reach the model
// beside the text; https URLs are fetched only from public addresses; a session keeps "[photo] …".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type OpenAI from 'openai';
import { request } from 'undici';
import { FakeModelProvider, makePng } from '@berth/testkit';
import { GATEWAY, MODEL_KEY, startServe } from './helpers/serve.js';
import { openAiClient } from './helpers/openai.js';
import { apiSession } from '../src/storage/sessions.js';

let provider: FakeModelProvider;
let s: Awaited<ReturnType<typeof startServe>>;
let client: OpenAI;
before(async () => {
  provider = await new FakeModelProvider().start();
  s = await startServe({
    provider,
    config: {
      model: {
        provider: 'fakeai',
        baseUrl: provider.url,
        modelId: 'fake-vision-1',
        apiKey: MODEL_KEY,
        capabilities: ['vision'],
      },
    },
  });
  client = openAiClient(s.url);
});
after(async () => {
  await s.close();
  await provider.stop();
});

const png = `data:image/png;base64,${makePng(3, 3).toString('base64')}`;

test('the official SDK sends an image: the model gets text and image parts; the session keeps "[photo] text"', async () => {
  const res = await client.chat.completions.create(
    {
      model: 'assistant-agent',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Describe this' },
            { type: 'image_url', image_url: { url: png } },
          ],
        },
      ],
    },
    { headers: { 'X-Assistant-Session-Id': 'img-1' } },
  );
  assert.equal(res.choices[0]!.message.content, 'You said: Describe this [1 image]');
  const user = (provider.requests.at(-1)!.body.messages as any[]).at(-1);
  assert.deepEqual(user.content, [
    { type: 'text', text: 'Describe this' },
    { type: 'image_url', image_url: { url: png } },
  ]);
  assert.deepEqual(
    s.store.load('test-agent', apiSession('img-1')).map((m) => m.content),
    ['[photo] Describe this', 'You said: Describe this [1 image]'],
  );
});

test('bad images are a 400 naming why, and no model call: a private https address, a fake PNG, http', async () => {
  const calls = provider.requests.length;
  const cases: Array<[string, RegExp]> = [
    ['https://127.0.0.1/cat.png', /is not at a public address/],
    [
      `data:image/png;base64,${Buffer.from('<html>not a png</html>').toString('base64')}`,
      /holds no PNG, JPEG, GIF or WebP/,
    ],
    ['http://images.example/cat.png', /must be https/],
  ];
  for (const [url, why] of cases) {
    const res = await request(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
      body: JSON.stringify({
        model: 'assistant-agent',
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
      }),
    });
    const body = (await res.body.json()) as any;
    assert.equal(res.statusCode, 400, JSON.stringify(body));
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.match(body.error.message, why);
  }
  assert.equal(provider.requests.length, calls);
});

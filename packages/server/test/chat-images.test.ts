// The chat API and images (DESIGN §7.3): an image_url part passes the control plane's check for a
// deployment whose catalog model has "vision" (a photo-sized body within the chat route's limit),
// and is refused with 400 INVALID_REQUEST naming why for others; the OpenAPI document says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makePng } from '@berth/testkit';
import { startHarnessWithKey, type Harness, BOT_TOKEN, MODEL_KEY } from './helpers/harness.js';
import { activeDeployment, assertError } from './helpers/api.js';

let h: Harness;
let key: string;
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h?.close());

const deployment = (modelProvider: string, modelId: string, bot: string) =>
  activeDeployment(h, key, 'byok', { modelProvider, modelId, messengerBotToken: bot, modelApiKey: MODEL_KEY });

const withImage = (url: string) => ({
  model: 'assistant-agent',
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url } },
      ],
    },
  ],
});
const chat = (id: string, payload: object) =>
  h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${id}/chat/completions`,
    headers: { 'x-api-key': key },
    payload,
  });

test('a vision deployment: an image of about 2 MB passes the check and goes on to the worker', async () => {
  const id = await deployment('openai', 'gpt-4o-mini', BOT_TOKEN);
  // A real PNG padded to 2 MB with a trailing chunk-free tail: the data URL is what a client sends.
  const big = Buffer.concat([makePng(8, 8), Buffer.alloc(2 * 1024 * 1024)]);
  const res = await chat(id, withImage(`data:image/png;base64,${big.toString('base64')}`));
  // The fake backend runs no worker: reaching it (502) means the body was accepted.
  assertError(res, 502, 'BAD_GATEWAY');
});

test('a deployment whose model has no vision: 400 INVALID_REQUEST naming why', async () => {
  const id = await deployment('deepseek', 'deepseek-chat', '7123456781:AAAnotherTokenForImageTests_abcdefghij');
  const res = await chat(id, withImage(`data:image/png;base64,${makePng().toString('base64')}`));
  assertError(res, 400, 'INVALID_REQUEST');
  assert.match(res.json().error.message, /does not read images \(its catalog entry has no "vision" capability\)/);
});

test('the OpenAPI document says which deployments take image_url parts', async () => {
  const res = await h.inject({ method: 'GET', url: '/api/openapi' });
  assert.equal(res.statusCode, 200);
  assert.match(res.body, /image_url/);
  assert.match(res.body, /\\"vision\\" capability/);
});

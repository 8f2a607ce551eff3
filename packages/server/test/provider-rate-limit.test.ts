// Issue 57, finding 3: the model provider's 429 reaches an API client with the provider's retry
// information (Retry-After, its x-ratelimit-* headers), never with Berth's own request budget
// (ratelimit-remaining: 584 beside a refusal). Through the whole chain: client → control plane's
// chat proxy → real agent host → fake provider (and, for managed, the control plane's model gateway).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startWithActiveBot } from './helpers/e2e.js';
import { startMeteredBot } from './helpers/metered-bot.js';

/** What an OpenAI-style provider sends with its 429. */
const PROVIDER_429 = {
  status: 429,
  error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
  headers: {
    'retry-after': '7',
    'x-ratelimit-limit-requests': '500',
    'x-ratelimit-remaining-requests': '0',
    'x-ratelimit-reset-requests': '7s',
  },
};

const chat = (stream: boolean) => ({ model: 'assistant-agent', stream, messages: [{ role: 'user', content: 'hi' }] });

function assertProviderRetry(res: { status: number; headers: Record<string, unknown>; json: any; text: string }) {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.json.error.code, 'RATE_LIMITED');
  assert.equal(res.headers['retry-after'], '7');
  assert.equal(res.headers['x-ratelimit-remaining-requests'], '0');
  assert.equal(res.headers['x-ratelimit-reset-requests'], '7s');
  assert.equal(res.headers['x-ratelimit-limit-requests'], '500');
  // Berth's budget is another budget: it does not travel with the provider's refusal.
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
    assert.equal(res.headers[name], undefined, `${name}: ${String(res.headers[name])}`);
}

test("a byok provider's 429 reaches the client with its Retry-After and x-ratelimit-*, without Berth's budget", async () => {
  const { e, id } = await startWithActiveBot('7410000001:AAproviderRateLimitByokBotToken_abcdef');
  try {
    const path = `/api/v1/assistants/${id}/chat/completions`;
    // A successful chat carries Berth's budget, as every counted request does.
    const ok = await e.api('POST', path, chat(false));
    assert.equal(ok.status, 200, ok.text);
    assert.ok(Number(ok.headers['ratelimit-remaining']) > 0);

    // The chat route's fast path (a plain JSON chat), answered whole and streamed.
    for (const stream of [false, true]) {
      e.provider.queue.push(PROVIDER_429);
      assertProviderRetry(await e.api('POST', path, chat(stream)));
    }
    // Fastify's route (a query string sends the chat there).
    e.provider.queue.push(PROVIDER_429);
    assertProviderRetry(await e.api('POST', `${path}?via=fastify`, chat(false)));
  } finally {
    await e.close();
  }
});

test("a managed assistant's router 429 crosses the model gateway with its retry information", async () => {
  const { e, id } = await startMeteredBot('7410000002:AAproviderRateLimitManagedToken_abcdef', { allowanceUsd: 5 });
  try {
    e.provider.queue.push(PROVIDER_429);
    assertProviderRetry(await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, chat(false)));
  } finally {
    await e.close();
  }
});

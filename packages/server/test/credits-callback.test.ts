// A managed deployment that runs out of credits: the owner's callback receives one signed
// `deployment.credits_exhausted` event (decision 0012), the user sees 429 CREDITS_EXHAUSTED on
// chat, with Retry-After to the renewal and x-should-retry: false, and a Telegram user is told in
// a plain sentence instead of the generic failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import { request } from 'undici';
import { listen, close } from '@berth/testkit';
import { ownersWebhook, startE2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';

test('running out of managed credits: one signed callback event, and CREDITS_EXHAUSTED on chat', async () => {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const hook = createServer(async (req, res) => {
    let body = '';
    for await (const c of req) body += c;
    got.push({ headers: req.headers, body });
    res.writeHead(204).end();
  });
  const hookUrl = await listen(hook);
  // 1000 + 2000 tokens at 1 and 2 USD per million: 0.005 USD a reply. Without max_tokens a call
  // holds its prompt estimate plus 4096 completion tokens (over 0.008 USD), so 0.012 USD admits one
  // reply and refuses the next: the allowance is never passed.
  const e = await startE2E({ CALLBACK_ALLOW_INSECURE: 'true', MANAGED_MONTHLY_CREDITS_USD: '0.012' });
  e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
  try {
    const bot = '7600000001:AAcreditsCallbackBotToken_abcdefghijklm';
    e.tg.addBot(bot);
    const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'managed' });
    assert.equal(bought.status, 201, bought.text);
    const { deploymentId: id, checkoutUrl } = bought.json.data;
    await request(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
    const act = await e.api('POST', `/api/v1/assistants/${id}/activate`, {
      name: 'Credits',
      modelId: 'router/fake-model',
      messengerBotToken: bot,
      callbackUrl: `${hookUrl}/hooks/credits`,
    });
    assert.equal(act.status, 200, act.text);
    await e.waitForStatus(id, ['active']);

    const chat = (content: string) =>
      e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
        model: 'assistant-agent',
        messages: [{ role: 'user', content }],
      });
    const replies = async () => (await e.api('GET', `/api/v1/assistants/${id}/usage`)).json.data.replies as number;
    let refused: Awaited<ReturnType<typeof chat>> | undefined;
    for (let i = 0; i < 6 && !refused; i++) {
      const booked = await replies();
      const res = await chat(`message ${i}`);
      if (res.status === 429) refused = res;
      else assert.equal(res.status, 200, res.text);
      // Settlement follows the reply's last byte: the next message is asked once this one is booked.
      if (!refused) await until('the reply booked', async () => (await replies()) > booked || undefined);
    }
    assert.ok(refused, 'the allowance stopped the chats');
    assert.equal(refused.json.error.code, 'CREDITS_EXHAUSTED');
    assert.match(refused.json.error.message, /credits are used up.*renew/);
    // A second refusal: still CREDITS_EXHAUSTED, and no second event.
    const again = await chat('and again');
    assert.equal(again.status, 429);
    assert.equal(again.json.error.code, 'CREDITS_EXHAUSTED');
    assert.equal(again.headers['x-should-retry'], 'false');
    assert.ok(Number(again.headers['retry-after']) > 0, 'Retry-After points at the renewal');

    e.tg.userSends(bot, 4242, { text: 'are you there?' });
    const told = await e.tg.waitForSent((m) => m.token === bot && m.chat_id === 4242);
    assert.match(told.text, /allowance/, 'the Telegram user is told the allowance is used up');
    assert.doesNotMatch(told.text, /try again in a moment/);

    const credits = () =>
      got.filter((g) => (JSON.parse(g.body) as { type: string }).type === 'deployment.credits_exhausted');
    await until('the credits event', () => credits().length > 0 || undefined);
    // Waits on the wall clock: a second event (of the second refusal) would be delivered within
    // milliseconds of the first; no event marks that none is coming.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(credits().length, 1, 'exactly one credits event');

    const d = await e.runtime.services.deployments.findById(id);
    const event = (await ownersWebhook(e, id)).verify(
      credits()[0]!.body,
      credits()[0]!.headers as Record<string, string>,
    ) as { type: string; data: Record<string, unknown> };
    assert.equal(event.data.deploymentId, id);
    assert.equal(event.data.apiMode, 'managed');
    assert.equal(event.data.periodEnd, d!.currentPeriodEnd);
    assert.equal(event.data.allowanceUsd, 0.012);
    assert.ok((event.data.usedUsd as number) <= 0.012, JSON.stringify(event.data));
  } finally {
    await e.close();
    await close(hook);
  }
});

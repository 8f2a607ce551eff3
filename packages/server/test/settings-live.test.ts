// Settings applied live (DESIGN §7.1) through the whole product: the control plane, the real agent
// host process, FakeTelegram and FakeModelProvider (SQLite, or PostgreSQL with
// BERTH_TEST_DATABASE_URL). After a PUT the next model call starts with the new persona while the
// status stays active, and a message that was being answered when the change landed is answered once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';

const BOT = '7300000023:AAsettingsLiveBotTokenForTheE2eTests_x';
let e: E2E;
let id: string;

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => e.close());

/** The first model call made after the `since`-th that carries a message reading `text`. */
const modelCallWith = (what: string, since: number, text: string) =>
  until(what, () =>
    e.provider.requests.slice(since).find((r) => r.body.messages.some((m: { content?: string }) => m.content === text)),
  );

test('a PUT reaches the running bot: next model call uses the new persona, status stays active, nothing answered twice', async () => {
  const pollsBefore = e.tg.polls(BOT);
  // A message whose answer is still being written when the settings change.
  e.provider.queue.push({ content: 'answer to the queued message', delayMs: 1500 });
  const asked = e.provider.requests.length;
  e.tg.userSends(BOT, 501, { text: 'queued before the change' });
  await until('the queued message to reach the model', () => (e.provider.requests.length > asked ? true : undefined));

  const res = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
    ...defaultSettings(),
    systemPrompt: 'You are Nova, who answers in haiku.',
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.version, 2);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');

  const afterPut = e.provider.requests.length;
  e.tg.userSends(BOT, 502, { text: 'asked after the change' });
  const next = await modelCallWith('the model call of the new message', afterPut, 'asked after the change');
  assert.deepEqual(next.body.messages[0], { role: 'system', content: 'You are Nova, who answers in haiku.' });

  await e.tg.waitForSent((m) => m.chat_id === 501 && m.text.includes('answer to the queued message'));
  await e.tg.waitForSent((m) => m.chat_id === 502);
  // Waits on the wall clock: a duplicate answer would follow the first within milliseconds, and
  // nothing marks that none is coming.
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(e.tg.sent.filter((m) => m.text.includes('answer to the queued message')).length, 1);
  const queuedCalls = e.provider.requests.filter((r) =>
    r.body.messages.some((m: { content?: string }) => m.content === 'queued before the change'),
  );
  assert.equal(queuedCalls.length, 1, 'the queued message went to the model once');
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
  assert.ok(e.tg.polls(BOT) > pollsBefore, 'the bot kept polling');
});

test('rollback restores the previous persona on the running bot', async () => {
  const res = await e.api('POST', `/api/v1/assistants/${id}/settings/rollback`, { version: 1 });
  assert.equal(res.status, 200, res.text);
  const afterPut = e.provider.requests.length;
  e.tg.userSends(BOT, 503, { text: 'after the rollback' });
  const next = await modelCallWith('the model call after the rollback', afterPut, 'after the rollback');
  assert.equal(next.body.messages[0].content, defaultSettings().systemPrompt);
});

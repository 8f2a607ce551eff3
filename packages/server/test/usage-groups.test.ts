// GET …/usage?groupBy=day|model|endUser (DESIGN §9.3) through the whole product: the real agent host
// names the end user of each model call, the model gateway books it, and the owner reads replies,
// tokens and cost per day, per model and per end user (SQLite, or PostgreSQL with
// BERTH_TEST_DATABASE_URL). Blocking one of them (access.blockedTelegramUserIds) refuses them
// before any model call, in open mode too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';

const BOT = '7300000062:AAusageGroupsBotTokenForTheE2eTests_x';
let e: E2E;
let id: string;

before(async () => ({ e, id } = await startWithActiveBot(BOT, { fakeaiModels: ['fake-model-1', 'fake-model-2'] })));
after(async () => {
  await e?.close();
});

const telegram = async (from: number, text: string) => {
  e.tg.userSends(BOT, from, { text });
  await e.tg.waitForSent((m) => m.chat_id === from && m.text.includes(text));
};
const chat = async (text: string, user?: string) => {
  const res = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: text }],
    ...(user ? { user } : {}),
  });
  assert.equal(res.status, 200, res.text);
};
const usage = async (groupBy?: string) => {
  const res = await e.api('GET', `/api/v1/assistants/${id}/usage${groupBy ? `?groupBy=${groupBy}` : ''}`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
};
type Group = { key: string | null; replies: number; promptTokens: number; completionTokens: number; costUsd: number };
const byKey = (groups: Group[]) => Object.fromEntries(groups.map((g) => [String(g.key), g.replies]));
const sum = (groups: Group[], f: (g: Group) => number) => groups.reduce((a, g) => a + f(g), 0);

test('usage per end user, per model and per day; their sums are the period totals', async () => {
  await telegram(901, 'one from 901');
  await telegram(901, 'two from 901');
  await telegram(902, 'one from 902');
  await chat('from alice', 'alice');
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'fake-model-2' })).status, 200);
  await chat('from nobody');

  const users = await usage('endUser');
  assert.equal(users.groupBy, 'endUser');
  assert.deepEqual(byKey(users.groups), { 'tg:901': 2, 'tg:902': 1, 'api:alice': 1, null: 1 });
  assert.equal(users.groups[0].key, 'tg:901', 'the costliest end user first');

  const models = await usage('model');
  assert.deepEqual(byKey(models.groups), { 'fake-model-1': 4, 'fake-model-2': 1 });

  const days = await usage('day');
  assert.deepEqual(
    days.groups.map(({ key, ...g }: Group) => ({ date: key, ...g })),
    days.daily,
    'per day is the daily series',
  );
  for (const view of [users, models, days]) {
    assert.equal(
      sum(view.groups, (g) => g.replies),
      view.replies,
    );
    assert.equal(
      sum(view.groups, (g) => g.promptTokens),
      view.promptTokens,
    );
    assert.equal(
      sum(view.groups, (g) => g.completionTokens),
      view.completionTokens,
    );
    assert.ok(Math.abs(sum(view.groups, (g) => g.costUsd) - view.usedUsd) < 1e-9);
  }
  // Without groupBy the answer is what it was.
  assert.equal('groups' in (await usage()), false);
  const bad = await e.api('GET', `/api/v1/assistants/${id}/usage?groupBy=week`);
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error.code, 'INVALID_REQUEST');
});

test('a blocked end user is refused before the model, in open mode too; others still talk', async () => {
  const doc = { ...defaultSettings(), access: { ...defaultSettings().access, blockedTelegramUserIds: [901] } };
  const put = await e.api('PUT', `/api/v1/assistants/${id}/settings`, doc);
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(put.json.data.access.blockedTelegramUserIds, [901]);
  const asked = e.provider.requests.length;
  e.tg.userSends(BOT, 901, { text: 'let me in' });
  await e.tg.waitForSent((m) => m.chat_id === 901 && m.text.includes('only talks to the people its owner has allowed'));
  await telegram(902, 'still here');
  assert.equal(
    e.provider.requests.slice(asked).filter((r) => JSON.stringify(r.body).includes('let me in')).length,
    0,
    'no model call for the blocked user',
  );
  // A document without the field (written before it existed) is still whole.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/settings`, defaultSettings())).status, 200);
});

// The Discord channel on the control plane (issue 59, DESIGN §9.1): PUT …/channels/discord checks
// the bot token with Discord (FakeDiscord's GET /users/@me), answers the bot's username and an
// invite URL with only the permissions the channel uses, stores a refused token as `failed` with a
// sentence naming the fix, keeps one application on one assistant (409 CHANNEL_IN_USE) and never
// answers the token. Real store (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL), real routes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeDiscord } from '@berth/testkit';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, assertError, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
let discord: FakeDiscord;

before(async () => {
  discord = await new FakeDiscord().start();
  ({ h, key } = await startHarnessWithKey({ DISCORD_API_ROOT: discord.apiRoot }));
});
after(async () => {
  await h.close();
  await discord.stop();
});

const put = (deploymentId: string, body: object, apiKey = key) =>
  h.inject({
    method: 'PUT',
    url: `/api/v1/assistants/${deploymentId}/channels/discord`,
    headers: { 'x-api-key': apiKey },
    payload: body as never,
  });

test('a token Discord accepts: connecting, the bot username and an invite URL; the token is never answered', async () => {
  const bot = discord.addBot({ username: 'helper-bot' });
  const id = await activeDeployment(h, key);
  const res = await put(id, { botToken: bot.token, applicationId: bot.applicationId });
  assert.equal(res.statusCode, 200, res.body);
  const c = res.json().data;
  assert.equal(c.type, 'discord');
  assert.equal(c.status, 'connecting');
  assert.equal(c.details.applicationId, bot.applicationId);
  assert.equal(c.details.botUsername, 'helper-bot');
  const invite = new URL(c.details.inviteUrl);
  assert.equal(invite.origin + invite.pathname, 'https://discord.com/oauth2/authorize');
  assert.equal(invite.searchParams.get('client_id'), bot.applicationId);
  assert.equal(invite.searchParams.get('scope'), 'bot applications.commands');
  // View Channel, Send Messages, Send Messages in Threads, Read Message History, Attach Files.
  const bits = BigInt(invite.searchParams.get('permissions')!);
  assert.equal(bits, (1n << 10n) | (1n << 11n) | (1n << 38n) | (1n << 16n) | (1n << 15n));
  assert.ok(!res.body.includes(bot.token), 'the token is write-only');
  assert.ok(!h.logs.join('').includes(bot.token), 'and never logged');
  const list = await h.inject({
    method: 'GET',
    url: `/api/v1/assistants/${id}/channels`,
    headers: { 'x-api-key': key },
  });
  assert.ok(list.json().data.some((x: { type: string }) => x.type === 'discord'));
  assert.ok(!list.body.includes(bot.token));
});

test('a token Discord refuses: failed, with a sentence naming where to get a new one', async () => {
  const bot = discord.addBot();
  discord.revoke(bot);
  const res = await put(await activeDeployment(h, key), { botToken: bot.token, applicationId: bot.applicationId });
  assert.equal(res.statusCode, 200, res.body);
  const c = res.json().data;
  assert.equal(c.status, 'failed');
  assert.match(c.statusMessage, /Discord refused the bot token.*Bot page of the Discord Developer Portal/);
});

test('bad input: a 400 naming the field, nothing stored', async () => {
  const bot = discord.addBot();
  const id = await activeDeployment(h, key);
  assertError(await put(id, { botToken: bot.token, applicationId: 'my-app' }), 400, 'INVALID_REQUEST');
  assertError(await put(id, { botToken: 'short', applicationId: bot.applicationId }), 400, 'INVALID_REQUEST');
  assertError(await put(id, { applicationId: bot.applicationId }), 400, 'INVALID_REQUEST');
  const wrongShape = await put(id, { phoneNumberId: '123456', accessToken: 'x'.repeat(30), appSecret: 'a'.repeat(32) });
  assertError(wrongShape, 400, 'INVALID_REQUEST');
  assert.match(wrongShape.json().error.message, /botToken/);
  const list = await h.inject({
    method: 'GET',
    url: `/api/v1/assistants/${id}/channels`,
    headers: { 'x-api-key': key },
  });
  assert.ok(!list.json().data.some((x: { type: string }) => x.type === 'discord'));
});

test('one application on a second assistant: 409 CHANNEL_IN_USE; a DELETE frees it', async () => {
  const bot = discord.addBot();
  const first = await activeDeployment(h, key);
  assert.equal((await put(first, { botToken: bot.token, applicationId: bot.applicationId })).statusCode, 200);
  const second = (await purchase(h, key)).deploymentId;
  const res = await put(second, { botToken: bot.token, applicationId: bot.applicationId });
  assertError(res, 409, 'CHANNEL_IN_USE');
  assert.match(res.json().error.message, /This Discord application already runs another assistant/);
  const del = await h.inject({
    method: 'DELETE',
    url: `/api/v1/assistants/${first}/channels/discord`,
    headers: { 'x-api-key': key },
  });
  assert.equal(del.statusCode, 200, del.body);
  assert.deepEqual(del.json().data, { success: true });
  assert.equal((await put(second, { botToken: bot.token, applicationId: bot.applicationId })).statusCode, 200);
});

// Discord end to end (issue 59, DESIGN §9.1): a real control plane and agent host, the loopback
// Discord (FakeDiscord: Gateway v10 and REST) and model provider. PUT …/channels/discord on an
// active assistant reaches its running worker within 5 s without restarting its Telegram bot, a DM
// is answered through the metering gateway, and DELETE silences the bot within 5 s.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeDiscord } from '@berth/testkit';
import { activeBot, channelFailed, channelView, startE2E, type E2E } from './helpers/e2e.js';

const BOT = '7200000059:AAdiscordE2eFakeBotTokenForTheseTests_x';
let e: E2E;
let discord: FakeDiscord;
let id: string;

before(async () => {
  discord = await new FakeDiscord().start();
  e = await startE2E({ DISCORD_API_ROOT: discord.apiRoot, DISCORD_GATEWAY_URL: discord.gatewayUrl });
  id = await activeBot(e, BOT);
});
after(async () => {
  await e.close();
  await discord.stop();
});

const call = (method: 'PUT' | 'DELETE', body?: object) =>
  fetch(`${e.url}/api/v1/assistants/${id}/channels/discord`, {
    method,
    headers: { 'x-api-key': e.key, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

const discordView = () => channelView(e, id, 'discord');

test('PUT on an active assistant: the bot is online within 5 s, answers a DM, and Telegram is not restarted', async () => {
  const bot = discord.addBot({ username: 'e2e-helper' });
  // A restarted Telegram bot would call getMe again: from here on it would be refused.
  e.tg.broken.add('getMe');
  const at = Date.now();
  const res = await call('PUT', { botToken: bot.token, applicationId: bot.applicationId });
  assert.equal(res.status, 200, await res.clone().text());
  const view = ((await res.json()) as { data: { details: { botUsername: string } } }).data;
  assert.equal(view.details.botUsername, 'e2e-helper');
  await discord.until(() => discord.online(bot), 5_000);
  assert.ok(Date.now() - at < 5_000, `online after ${Date.now() - at} ms`);

  const dm = discord.dmChannel();
  discord.post(bot, dm, discord.user('Ada'), 'hello from Discord');
  const [answer] = await discord.until(() => discord.sentTo(dm.id).length === 1 && discord.sentTo(dm.id));
  assert.equal(answer!.content, 'You said: hello from Discord');

  assert.equal(e.tg.brokenAnswers.get('getMe') ?? 0, 0, 'Telegram was not restarted');
  // The worker's Gateway state is what the owner reads.
  assert.equal((await discordView()).status, 'connected');
  e.tg.broken.delete('getMe');
  e.tg.userSends(BOT, 5901, { text: 'and Telegram?' });
  await e.tg.waitForSent((m) => m.chat_id === 5901);

  const del = await call('DELETE');
  assert.equal(del.status, 200, await del.clone().text());
  await discord.until(() => !discord.online(bot), 5_000);
  discord.post(bot, dm, discord.user('Ada'), 'anyone there?');
  e.tg.userSends(BOT, 5902, { text: 'still here?' });
  await e.tg.waitForSent((m) => m.chat_id === 5902);
  assert.equal(discord.sentTo(dm.id).length, 1, 'a removed channel answers nothing');
});

test('a token revoked while the bot runs: the channel is failed with what to fix; the assistant stays active', async () => {
  const bot = discord.addBot({ username: 'revoked-helper' });
  const res = await call('PUT', { botToken: bot.token, applicationId: bot.applicationId });
  assert.equal(res.status, 200, await res.clone().text());
  await discord.until(() => discord.online(bot), 5_000);
  discord.revoke(bot);
  const view = await channelFailed(e, id, 'discord');
  assert.match(view.statusMessage, /Discord refused the bot token .*Developer Portal/);
  assert.ok(!JSON.stringify(view).includes(bot.token), 'the token is never shown');
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
  e.tg.userSends(BOT, 5903, { text: 'and now?' });
  await e.tg.waitForSent((m) => m.chat_id === 5903);
});

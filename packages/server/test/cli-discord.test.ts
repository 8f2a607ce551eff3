// berth assistants channels set|remove discord (issue 59): the real `berth` binary in a subprocess
// against a real control plane and FakeDiscord; the bot token goes in on stdin and never comes out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeDiscord } from '@berth/testkit';
import { runBerthWithKey } from './helpers/cli.js';
import { startE2E, type E2E } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';

const BOT = '7200000062:AAcliDiscordFakeBotTokenForCliTests_xyz';
let e: E2E;
let discord: FakeDiscord;
let id: string;
const configHome = tempDirForFile('berth-cli-discord-');

const berth = (args: string[], input?: string) => runBerthWithKey(e, configHome, args, input);

before(async () => {
  discord = await new FakeDiscord().start();
  e = await startE2E({ DISCORD_API_ROOT: discord.apiRoot, DISCORD_GATEWAY_URL: discord.gatewayUrl });
  e.tg.addBot(BOT);
  id = await e.activate(BOT);
});
after(async () => {
  await e.close();
  await discord.stop();
});

test('channels set discord takes the token on stdin, prints the bot and the invite URL, never the token', async () => {
  const bot = discord.addBot({ username: 'cli-helper' });
  const set = await berth(
    ['assistants', 'channels', 'set', id, 'discord', '--application-id', bot.applicationId, '--bot-token', '-'],
    `${bot.token}\n`,
  );
  assert.equal(set.status, 0, set.stderr);
  assert.match(set.stdout, /bot: +cli-helper\n/);
  assert.match(set.stdout, /invite URL: +https:\/\/discord\.com\/oauth2\/authorize\?client_id=\d+/);
  for (const out of [set.stdout, set.stderr]) assert.ok(!out.includes(bot.token));
  const removed = await berth(['assistants', 'channels', 'remove', id, 'discord']);
  assert.equal(removed.status, 0, removed.stderr);
  assert.match(removed.stdout, /Removed the Discord channel/);
});

test('channels set discord without an application id: a usage error, nothing sent', async () => {
  const none = await berth(['assistants', 'channels', 'set', id, 'discord', '--bot-token', '-'], 'x\n');
  assert.equal(none.status, 2, none.stderr);
  assert.match(none.stderr, /--application-id is required/);
});

// Discord in the "Channels" card in Debian's Chromium against the real control plane (issue 59):
// added with a write-only bot token, the invite link shown, then removed. The page passes axe
// under the server's CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPage, skip } from './helpers/browser.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000061:AAdiscordCardFakeBotTokenForBrowser_xy';
const APP = '1187654321098765432';
const TOKEN = 'MTE4NzY1NDMyMTA5ODc2NTQzMg.GaBcDe.discordCardBotTokenForBrowserTests01234';

const bed = signedInWithAssistant({ email: 'discord@example.com', bot: BOT, name: 'Discord bot' });

test('add Discord, see the invite link, remove it', { skip }, async () => {
  const { rig, id } = bed;
  const { page, api } = rig;
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Channels' });
  await card.getByLabel('Application ID').fill(APP);
  await card.getByLabel('Bot token').fill(TOKEN);
  await card.getByRole('button', { name: 'Add Discord' }).click();
  const link = card.getByRole('link', { name: 'Open the invite' });
  await link.waitFor();
  const href = new URL((await link.getAttribute('href'))!);
  assert.equal(href.searchParams.get('client_id'), APP);
  assert.equal(href.searchParams.get('scope'), 'bot applications.commands');
  assert.equal(await card.getByLabel('Bot token').inputValue(), '');
  assert.ok(!(await page.content()).includes(TOKEN), 'the bot token is on the page');
  await card.getByRole('listitem').filter({ hasText: 'Discord:' }).waitFor();
  await checkPage(page, 'channels-02-discord-added');

  await card.getByRole('button', { name: 'Remove Discord' }).click();
  await card.getByRole('heading', { name: 'Add Discord' }).waitFor();
  const listed = await api('GET', `/api/v1/assistants/${id}/channels`);
  assert.ok(!listed.json.data.some((c: { type: string }) => c.type === 'discord'));
});

// Every field of the settings document in the dashboard (DESIGN §9.3), in Debian's Chromium against
// the real control plane and agent host, at desktop width and on a 390 px phone: edit, save, reload
// shows what was saved (and GET …/settings holds it), a bad value gets a sentence beside its field
// and stores nothing; the byok spend cap likewise.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { checkPage, shot, skip } from './helpers/browser.js';
import { assertFits } from './helpers/phone.js';
import { startSignedIn, type SignedIn } from './helpers/signed-in.js';

let rig: SignedIn;
let page: Page;
const ids: Record<string, string> = {};
const BOTS = {
  desktop: '7200000062:AAsettingsWholeDesktopBotTokenForBrows',
  phone: '7200000063:AAsettingsWholePhoneBotTokenForBrowse_x',
};

before(async () => {
  if (skip) return;
  // Signed in at desktop width (the phone's menu folds the navigation the sign-up helper uses).
  rig = await startSignedIn({ email: 'whole@example.com' });
  page = rig.page;
  for (const [where, bot] of Object.entries(BOTS)) {
    rig.e.tg.addBot(bot);
    ids[where] = await rig.activate(bot, `Whole ${where}`);
  }
  for (const id of Object.values(ids)) await rig.waitActive(id);
});
after(async () => {
  if (skip) return;
  await rig?.close();
});

/** Types an id into one of the card's id lists and presses its button, as a person adds one. */
async function addId(list: Locator, label: string, button: 'Allow' | 'Block', raw: string) {
  await list.getByLabel(label).fill(raw);
  await list.getByRole('button', { name: button }).click();
}

for (const [where, width, height] of [
  ['desktop', 1280, 900],
  ['phone', 390, 844],
] as const) {
  test(`${where}: every setting is edited, saved and shown after a reload; bad values get sentences`, {
    skip,
  }, async () => {
    const id = ids[where]!;
    await page.setViewportSize({ width, height });
    await page.goto(`/deployments/${id}`);
    const card = page.getByRole('region', { name: 'Personality and access' });
    await card.getByLabel('Welcome message').waitFor();
    await card.getByText('Everything on this card applies live').waitFor();

    // Bad values first: sentences, and no version is stored.
    await card.getByLabel('Conversation kept word for word (characters)').fill('50');
    await card.getByLabel('Replies per person per day (empty: no limit)').fill('many');
    await card.getByLabel('Wait for more messages (milliseconds, empty: 1,500)').fill('20000');
    await card.getByLabel('Who may talk to the bot').selectOption('allowlist');
    await card.getByRole('button', { name: 'Apply persona and access' }).click();
    await card.getByText('must be a whole number of characters from 1,000 to 200,000').waitFor();
    await card.getByText('Replies per person per day must be a whole number from 1 to 100,000').waitFor();
    await card
      .getByText('The wait for more messages must be a whole number of milliseconds from 0 to 10,000')
      .waitFor();
    await card.getByText('Add at least one Telegram user id').waitFor();
    const allowed = card.getByRole('group', { name: 'Allowed Telegram users' });
    await addId(allowed, 'Telegram user id to allow', 'Allow', 'not a number');
    await allowed.getByText('A Telegram user id is a whole number').waitFor();
    assert.equal((await rig.api('GET', `/api/v1/assistants/${id}/settings`)).json.data.version, 1);
    if (where === 'phone') await assertFits(page, 390, 'the settings card with its sentences');
    await shot(page, `settings-whole-${where}-01-errors`);

    // Every field, then save.
    await card.getByLabel('Persona (system prompt)').fill('You are Whole.');
    await card.getByLabel('Welcome message').fill('Hello! I am Whole.');
    await card.getByLabel("Language of Berth's own messages").selectOption('de');
    await card.getByRole('checkbox', { name: 'Search the web' }).uncheck();
    await card.getByRole('checkbox', { name: 'Reminders and scheduled tasks' }).uncheck();
    await card.getByLabel('In group chats').selectOption('off');
    await card.getByLabel('Conversation kept word for word (characters)').fill('30000');
    await card.getByLabel('Wait for more messages (milliseconds, empty: 1,500)').fill('400');
    await card.getByLabel('Replies per person per day (empty: no limit)').fill('25');
    await addId(allowed, 'Telegram user id to allow', 'Allow', '424242');
    await allowed.getByLabel('Telegram user id to allow').fill('515151');
    await allowed.getByLabel('Telegram user id to allow').press('Enter');
    await allowed.getByRole('button', { name: 'Remove 515151' }).waitFor();
    const blocked = card.getByRole('group', { name: 'Blocked Telegram users' });
    await addId(blocked, 'Telegram user id to block', 'Block', '666');
    // The other channels' people: a malformed id gets its sentence, then one of each is added.
    const waAllowed = card.getByRole('group', { name: 'Allowed WhatsApp numbers' });
    await addId(waAllowed, 'WhatsApp number to allow', 'Allow', '12');
    await waAllowed.getByText('A WhatsApp number is its digits with the country code').waitFor();
    await addId(waAllowed, 'WhatsApp number to allow', 'Allow', '+1 650 555 1234');
    await waAllowed.getByRole('button', { name: 'Remove 16505551234' }).waitFor();
    const dcBlocked = card.getByRole('group', { name: 'Blocked Discord users' });
    await addId(dcBlocked, 'Discord user id to block', 'Block', '@someone');
    await dcBlocked.getByText('A Discord user id is 17 to 20 digits').waitFor();
    await addId(dcBlocked, 'Discord user id to block', 'Block', '1187654321098765432');
    await card.getByRole('button', { name: 'Apply persona and access' }).click();
    await card.getByText('Saved as version 2').waitFor();

    const stored = (await rig.api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
    assert.equal(stored.version, 2);
    assert.equal(stored.systemPrompt, 'You are Whole.');
    assert.equal(stored.welcomeMessage, 'Hello! I am Whole.');
    assert.equal(stored.language, 'de');
    assert.deepEqual(stored.tools, {
      webPage: true,
      webSearch: false,
      calculator: true,
      time: true,
      memory: true,
      reminders: false,
    });
    assert.equal(stored.groups, 'off');
    assert.equal(stored.historyChars, 30000);
    assert.equal(stored.burstMs, 400);
    assert.deepEqual(stored.access, {
      mode: 'allowlist',
      telegramUserIds: [424242, 515151],
      perUserDailyReplies: 25,
      blockedTelegramUserIds: [666],
      whatsappNumbers: ['16505551234'],
      blockedDiscordUserIds: ['1187654321098765432'],
    });

    await page.reload();
    await card.getByLabel('Welcome message').waitFor();
    assert.equal(await card.getByLabel('Welcome message').inputValue(), 'Hello! I am Whole.');
    assert.equal(await card.getByLabel("Language of Berth's own messages").inputValue(), 'de');
    assert.equal(await card.getByRole('checkbox', { name: 'Search the web' }).isChecked(), false);
    assert.equal(await card.getByLabel('In group chats').inputValue(), 'off');
    assert.equal(await card.getByLabel('Conversation kept word for word (characters)').inputValue(), '30000');
    assert.equal(await card.getByLabel('Wait for more messages (milliseconds, empty: 1,500)').inputValue(), '400');
    assert.equal(await card.getByLabel('Replies per person per day (empty: no limit)').inputValue(), '25');
    await allowed.getByRole('button', { name: 'Remove 424242' }).waitFor();
    await blocked.getByRole('button', { name: 'Remove 666' }).waitFor();
    await waAllowed.getByRole('button', { name: 'Remove 16505551234' }).waitFor();
    await dcBlocked.getByRole('button', { name: 'Remove 1187654321098765432' }).waitFor();

    // The wait for more messages emptied: the setting goes, and the agent's default (1,500) is back.
    await card.getByLabel('Wait for more messages (milliseconds, empty: 1,500)').fill('');
    await card.getByRole('button', { name: 'Apply persona and access' }).click();
    await card.getByText('Saved as version 3').waitFor();
    const third = (await rig.api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
    assert.equal(third.burstMs, undefined);
    assert.deepEqual(third.access.whatsappNumbers, ['16505551234'], 'a save keeps the other channels’ lists');

    // The spend cap (byok): a sentence for a bad amount, then saved and shown after a reload.
    const cap = page.getByRole('region', { name: 'Spend cap' });
    await cap.getByLabel('Cap in US dollars (empty: no cap)').fill('-3');
    await cap.getByRole('button', { name: 'Save spend cap' }).click();
    await cap.getByText('The spend cap is an amount in US dollars').waitFor();
    await cap.getByLabel('Cap in US dollars (empty: no cap)').fill('12.50');
    await cap.getByRole('button', { name: 'Save spend cap' }).click();
    await cap.getByText('Spend cap saved: $12.5 per billing period.').waitFor();
    assert.equal((await rig.api('GET', `/api/v1/assistants/${id}/usage`)).json.data.allowanceUsd, 12.5);
    await page.reload();
    await cap.getByLabel('Cap in US dollars (empty: no cap)').waitFor();
    for (let i = 0; (await cap.getByLabel('Cap in US dollars (empty: no cap)').inputValue()) !== '12.5'; i++) {
      assert.ok(i < 100, 'the cap did not show after the reload');
      await new Promise((r) => setTimeout(r, 50));
    }

    if (where === 'phone') await assertFits(page, 390, 'the deployment page with every setting');
    await (where === 'desktop'
      ? checkPage(page, 'settings-whole-desktop-02-saved')
      : shot(page, 'settings-whole-phone-02-saved'));
    assert.deepEqual(rig.pageErrors, []);
  });
}

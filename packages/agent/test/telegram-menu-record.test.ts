// A bot's / menu is remembered call by call (issue 64): a start sends only the setMyCommands calls
// the bot lacks. Before, the menu was recorded whole after its last translation, and a host stopped
// while its paced queue was still translating (bench:density's restart) sent every menu again.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type AssistantSettings, defaultSettings } from '@berth/contracts/settings';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { ownBots } from './helpers/own-bots.js';
import { startServe, withServe } from './helpers/serve.js';
import { wholeMenuKey } from '../src/channels/telegram/menu-record.js';
import { menuCalls } from '../src/channels/telegram/texts/index.js';
import { SessionStore } from '../src/storage/sessions.js';

const { tg, provider } = fakeTelegramBed();
const bots = ownBots({ tg, provider }, { firstId: 7400000001, tag: 'menuRecordTestToken', usernamePrefix: 'berth' });

test('a start sends only the menu calls the bot lacks: none on a restart with the menu whole, only the changed ones when the language changes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-menu-record-'));
  const token = bots.token('record');
  tg.addBot(token, 'berth_record_bot');
  const start = (settings: AssistantSettings = defaultSettings()) =>
    startServe({ provider, telegram: tg, botToken: token, dataDir, config: { settings } });
  let s = await start();
  /** How many of the menu's calls the store says the bot has. */
  const recorded = () => s.store.telegramMenu('test-agent')?.split(' ').length ?? 0;
  const calls = () => tg.setMyCommandsCalls(token);
  let chat = 821;
  /** An update handled after the bot connected: the menu's calls, if any were due, were queued by then. */
  const answered = async () => {
    const id = chat++;
    tg.userSends(token, id, { text: '/help' });
    await tg.waitForSent((m) => m.chat_id === id);
  };
  try {
    // The first start is cut short after the default menu and the German one: Telegram refuses the
    // rest (the same as a stop while they waited their turn: they are not set).
    tg.onCall = (method, t, params) => {
      if (method === 'setMyCommands' && t === token && params.language_code === 'de') tg.broken.add('setMyCommands');
    };
    await waitUntil(() => tg.brokenAnswers.get('setMyCommands') === 4, 'es, fr, pt and ru refused');
    await waitUntil(() => s.logs.some((l) => l.includes('telegram menu not set')), 'the failure logged');
    assert.equal(calls(), 2);
    await s.close(true);
    tg.onCall = undefined;
    tg.broken.delete('setMyCommands');

    s = await start();
    await waitUntil(() => ['es', 'fr', 'pt', 'ru'].every((l) => tg.commands(token, l)), 'the missing menus set');
    // Russian is the last call: every other one was answered before it.
    assert.equal(calls(), 6, 'the restart made the four missing calls, not the two already set');
    await waitUntil(() => recorded() === 6, 'the whole menu recorded');
    await s.close(true);

    s = await start();
    await waitUntil(() => s.agent.health().ready, 'the bot connects again');
    await answered();
    assert.equal(calls(), 6, 'a restart with the menu whole makes no call');

    // German for everyone: every call changes but the German one, which already says the same.
    const before = s.store.telegramMenu('test-agent');
    s.agent.useSettings({ ...defaultSettings(), language: 'de' });
    const german = () => tg.commands(token, 'de');
    await waitUntil(
      () =>
        ['', 'es', 'fr', 'pt', 'ru'].every((l) => JSON.stringify(tg.commands(token, l)) === JSON.stringify(german())),
      'every language shows the German menu',
    );
    await waitUntil(
      () => s.store.telegramMenu('test-agent') !== before && recorded() === 6,
      'the German menu recorded',
    );
    assert.equal(calls(), 11, 'five calls for the five changed languages');
    await s.close(true);

    s = await start({ ...defaultSettings(), language: 'de' });
    await waitUntil(() => s.agent.health().ready, 'the bot connects a fourth time');
    await answered();
    assert.equal(calls(), 11, 'the German menu is not sent again');
  } finally {
    tg.onCall = undefined;
    tg.broken.delete('setMyCommands');
    await s.close(true);
  }
});

test('a menu recorded whole by an older Berth is not sent again after the upgrade', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-menu-upgrade-'));
  const token = bots.token('upgrade');
  tg.addBot(token, 'berth_upgrade_bot');
  const settings = defaultSettings();
  const old = new SessionStore(dataDir);
  const on = { memory: settings.tools.memory, reminders: settings.tools.reminders };
  old.setTelegramMenu('test-agent', wholeMenuKey(token, menuCalls(settings.language, on)));
  old.close();
  await withServe({ provider, telegram: tg, botToken: token, dataDir, config: { settings } }, async (s) => {
    await waitUntil(() => s.agent.health().ready, 'the bot connects');
    tg.userSends(token, 831, { text: '/help' });
    await tg.waitForSent((m) => m.chat_id === 831);
    assert.equal(tg.setMyCommandsCalls(token), 0);
  });
});

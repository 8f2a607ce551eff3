import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSettings, defaultSettings } from '@berth/contracts/settings';

test('the defaults are a valid settings document', () => {
  assert.equal(checkSettings(defaultSettings()).ok, true);
});

test('unknown keys, bad language tags and negative quotas are refused with where and why', () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ ...defaultSettings(), colour: 'blue' }, /additional properties/],
    [{ ...defaultSettings(), language: 'english please' }, /\/language/],
    [
      { ...defaultSettings(), access: { mode: 'open', telegramUserIds: [], perUserDailyReplies: -1 } },
      /perUserDailyReplies/,
    ],
    [{ ...defaultSettings(), historyChars: 10 }, /\/historyChars/],
    [{ ...defaultSettings(), systemPrompt: 'x'.repeat(20_001) }, /\/systemPrompt/],
    // Issue 57 R10: 2,049 emoji are 4,098 UTF-16 units, too long for Telegram; spaces are empty to it.
    [{ ...defaultSettings(), welcomeMessage: '😀'.repeat(2049) }, /\/welcomeMessage/],
    [{ ...defaultSettings(), welcomeMessage: ' \n ' }, /\/welcomeMessage/],
  ];
  for (const [doc, why] of cases) {
    const res = checkSettings(doc);
    assert.equal(res.ok, false);
    assert.match((res as { message: string }).message, why);
  }
  assert.equal(checkSettings({ ...defaultSettings(), welcomeMessage: '😀'.repeat(2048) }).ok, true);
  for (const language of ['auto', 'de', 'pt-BR', 'zh-Hant-TW', 'es-419']) {
    assert.equal(checkSettings({ ...defaultSettings(), language }).ok, true, language);
  }
});

test("a channel's or a group's chat id (negative) may be allowed like a user's id", () => {
  // Senders posting on behalf of a chat are keyed by its id (decision 0031, telegram-senders).
  const access = { mode: 'allowlist', telegramUserIds: [601, -1001234567890], perUserDailyReplies: null } as const;
  assert.equal(checkSettings({ ...defaultSettings(), access }).ok, true);
});

test('settings.timezone: an IANA name, null or absent; anything else is refused where it is', () => {
  for (const timezone of ['Europe/Berlin', 'America/Argentina/Buenos_Aires', 'UTC', null])
    assert.equal(checkSettings({ ...defaultSettings(), timezone }).ok, true, String(timezone));
  for (const timezone of ['Mars/Olympus_Mons', '+02:00', '', 'Europe/Berlin; DROP', 'x'.repeat(65)]) {
    const r = checkSettings({ ...defaultSettings(), timezone });
    assert.equal(r.ok, false, timezone);
    assert.match(JSON.stringify(r), /timezone/);
  }
});

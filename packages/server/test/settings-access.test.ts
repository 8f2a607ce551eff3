// Who may talk to the bot (DESIGN §7.1 access) through the whole product: control plane, the real
// agent host, FakeTelegram and FakeModelProvider (SQLite, or PostgreSQL with
// BERTH_TEST_DATABASE_URL). Strangers never cause a model call; pairing codes are approved by the
// owner through the API and take effect live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';

const BOT = '7300000024:AAsettingsAccessBotTokenForE2eTests_xy';
let e: E2E;
let id: string;

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => e.close());

const withAccess = (access: Partial<AssistantSettings['access']>): AssistantSettings => ({
  ...defaultSettings(),
  access: { ...defaultSettings().access, ...access },
});
async function putSettings(settings: AssistantSettings) {
  const res = await e.api('PUT', `/api/v1/assistants/${id}/settings`, settings);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}
const modelCallsFrom = (text: string) =>
  e.provider.requests.filter((r) => r.body.messages.some((m: { content?: string }) => m.content === text)).length;
const sentTo = (chat: number) => e.tg.sent.filter((m) => m.chat_id === chat);

test('pairing: a stranger gets a code and no model call; the owner approves it and the user is answered', async () => {
  await putSettings(withAccess({ mode: 'pairing' }));
  const calls = e.provider.requests.length;
  e.tg.userSends(BOT, 601, { text: 'let me in' });
  const notice = await e.tg.waitForSent((m) => m.chat_id === 601);
  const code = /\b([A-Z2-9]{8})\b/.exec(notice.text)?.[1];
  assert.ok(code, `no 8-character code in "${notice.text}"`);
  e.tg.userSends(BOT, 601, { text: 'please?' });
  await e.tg.waitForSent((m) => m.chat_id === 601 && m !== notice);
  assert.equal(e.provider.requests.length, calls, 'a stranger caused a model call');
  assert.ok(
    sentTo(601).every((m) => m.text.includes(code)),
    'the same code again',
  );

  const list = await e.api('GET', `/api/v1/assistants/${id}/pairings`);
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(
    list.json.data.map((p: { code: string; telegramUserId: number }) => [p.code, p.telegramUserId]),
    [[code, 601]],
  );
  assert.ok(Date.parse(list.json.data[0].expiresAt) > Date.now() + 50 * 60_000);

  const ok = await e.api('POST', `/api/v1/assistants/${id}/pairings/${code}/approve`);
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual(ok.json.data.access.telegramUserIds, [601]);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data.version, ok.json.data.version);
  assert.deepEqual((await e.api('GET', `/api/v1/assistants/${id}/pairings`)).json.data, []);

  e.tg.userSends(BOT, 601, { text: 'thanks for letting me in' });
  await e.tg.waitForSent((m) => m.chat_id === 601 && m.text.includes('You said: thanks for letting me in'));
  assert.equal(modelCallsFrom('thanks for letting me in'), 1);

  const again = await e.api('POST', `/api/v1/assistants/${id}/pairings/${code}/approve`);
  assert.equal(again.status, 404, again.text);
  assert.equal(again.json.error.code, 'NOT_FOUND');
  const bad = await e.api('POST', `/api/v1/assistants/${id}/pairings/not-a-code/approve`);
  // A malformed path parameter is a resource that does not exist, as for a malformed deployment id.
  assert.equal(bad.status, 404, bad.text);
});

test('pairing: an expired code is a clear 404 and changes nothing', async () => {
  e.tg.userSends(BOT, 604, { text: 'hello there' });
  const notice = await e.tg.waitForSent((m) => m.chat_id === 604);
  const code = /\b([A-Z2-9]{8})\b/.exec(notice.text)![1]!;
  // An hour passes for this code (the agent keeps codes in its data directory).
  const db = new Database(join(e.dataDir, 'agents', 'agent-access.sqlite'));
  db.prepare('UPDATE pairings SET expires_at = ? WHERE code = ?').run(Date.now() - 1000, code);
  db.close();
  const before = (await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
  const res = await e.api('POST', `/api/v1/assistants/${id}/pairings/${code}/approve`);
  assert.equal(res.status, 404, res.text);
  assert.match(res.json.error.message, /expired/);
  assert.deepEqual((await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data, before);
});

test('allowlist: a user not on the list gets one sentence, never a model call', async () => {
  await putSettings(withAccess({ mode: 'allowlist', telegramUserIds: [601] }));
  const calls = e.provider.requests.length;
  e.tg.userSends(BOT, 602, { text: 'who are you?' });
  const notice = await e.tg.waitForSent((m) => m.chat_id === 602);
  assert.match(notice.text, /only talks to/);
  e.tg.userSends(BOT, 601, { text: 'I am on the list' });
  await e.tg.waitForSent((m) => m.chat_id === 601 && m.text.includes('You said: I am on the list'));
  assert.equal(e.provider.requests.length, calls + 1, 'only the listed user reached the model');
  assert.equal(modelCallsFrom('who are you?'), 0);
});

test('open with perUserDailyReplies: past the quota one sentence, then silence, and no model call', async () => {
  await putSettings(withAccess({ mode: 'open', perUserDailyReplies: 2 }));
  for (const text of ['one', 'two']) {
    e.tg.userSends(BOT, 603, { text });
    await e.tg.waitForSent((m) => m.chat_id === 603 && m.text.includes(`You said: ${text}`));
  }
  e.tg.userSends(BOT, 603, { text: 'three' });
  const limit = await e.tg.waitForSent((m) => m.chat_id === 603 && /for today/.test(m.text));
  e.tg.userSends(BOT, 603, { text: 'four' });
  e.tg.userSends(BOT, 605, { text: 'someone else' });
  await e.tg.waitForSent((m) => m.chat_id === 605 && m.text.includes('You said: someone else'));
  assert.equal(modelCallsFrom('three') + modelCallsFrom('four'), 0);
  assert.equal(sentTo(603).filter((m) => /for today/.test(m.text)).length, 1, 'one sentence a day');
  assert.ok(limit);
});

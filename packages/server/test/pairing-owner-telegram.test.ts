// Pairing requests reach the owner in Telegram (DESIGN §9.3, issue 61) through the whole product:
// the real agent host and FakeTelegram (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL). With
// settings.owner.telegramUserId, a stranger's code reaches the owner with Approve and Deny buttons;
// only the owner's press counts; Approve adds the stranger as a new settings version, applied
// live, and tells them; Deny leaves them out.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';

const BOT = '7300000067:AApairingOwnerButtonsBotTokenForE2e_xy';
const OWNER = { id: 4_001_001, first_name: 'Olga' };
let e: E2E;
let id: string;

before(async () => {
  ({ e, id } = await startWithActiveBot(BOT));
  const put = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
    ...defaultSettings(),
    access: { mode: 'pairing', telegramUserIds: [], perUserDailyReplies: null },
    owner: { telegramUserId: OWNER.id },
  });
  assert.equal(put.status, 200, put.text);
});
after(async () => {
  await e?.close();
});

const allowed = async () =>
  ((await e.api('GET', `/api/v1/assistants/${id}/settings`)).json as any).data.access.telegramUserIds as number[];

test('the owner talks to their own pairing-mode bot without a code', async () => {
  e.tg.userSends(BOT, OWNER.id, { text: 'hello, my bot', from: OWNER });
  const answer = await e.tg.waitForSent((m) => m.chat_id === OWNER.id);
  assert.doesNotMatch(answer.text, /\b[A-Z2-9]{8}\b/, answer.text);
});

test("a stranger's request reaches the owner with buttons; only the owner's Approve lets them in", async () => {
  const ada = { id: 5_001_001, first_name: 'Ada' };
  e.tg.userSends(BOT, ada.id, { text: 'may I?', from: ada });
  const code = /\b([A-Z2-9]{8})\b/.exec((await e.tg.waitForSent((m) => m.chat_id === ada.id)).text)![1]!;
  const notice = await e.tg.waitForSent((m) => m.chat_id === OWNER.id && m.text.includes(code));
  assert.match(notice.text, /^Ada \(Telegram id 5001001\) asks to talk to this assistant/);
  const buttons = (notice.reply_markup as any).inline_keyboard.flat() as Array<{ text: string; callback_data: string }>;
  assert.deepEqual(
    buttons.map((b) => b.text),
    ['Approve', 'Deny'],
  );

  // Someone else pressing the owner's button (a forwarded message): refused, nothing changes.
  const mallory = { id: 6_001_001, first_name: 'Mallory' };
  e.tg.userPresses(BOT, notice, buttons[0]!.callback_data, mallory);
  await waitFor(() => e.tg.callbackAnswers.length === 1, 'the refusal');
  assert.equal(e.tg.callbackAnswers[0]!.text, 'Only the owner can decide this.');
  assert.deepEqual(await allowed(), []);

  e.tg.userPresses(BOT, notice, buttons[0]!.callback_data, OWNER);
  await waitFor(() => e.tg.callbackAnswers.length === 2, 'the approval');
  assert.equal(e.tg.callbackAnswers[1]!.text, 'Approved: Ada can talk to the assistant now.');
  assert.deepEqual(await allowed(), [ada.id]);
  await e.tg.waitForSent((m) => m.chat_id === ada.id && m.text === 'The owner let you in. Send me a message.');
  assert.match(e.tg.message(OWNER.id, notice.message_id!)!.text, /✅ Approved: Ada/);
  // Pressed again (a double tap): the code is gone, and the owner is told so.
  e.tg.userPresses(BOT, notice, buttons[0]!.callback_data, OWNER);
  await waitFor(() => e.tg.callbackAnswers.length === 3, 'the second press');
  assert.equal(e.tg.callbackAnswers[2]!.text, 'This request has expired or was already decided.');

  // Live: Ada's next message is answered by the model.
  const before = e.tg.sentTo(ada.id).length;
  e.tg.userSends(BOT, ada.id, { text: 'thank you', from: ada });
  await waitFor(() => e.tg.sentTo(ada.id).length > before, "Ada's answer");
  assert.doesNotMatch(e.tg.sentTo(ada.id).at(-1)!.text, /\b[A-Z2-9]{8}\b/);
});

test("the owner's Deny leaves the stranger out", async () => {
  const bob = { id: 5_001_002, first_name: 'Bob' };
  e.tg.userSends(BOT, bob.id, { text: 'let me in', from: bob });
  const code = /\b([A-Z2-9]{8})\b/.exec((await e.tg.waitForSent((m) => m.chat_id === bob.id)).text)![1]!;
  const notice = await e.tg.waitForSent((m) => m.chat_id === OWNER.id && m.text.includes(code));
  const deny = (notice.reply_markup as any).inline_keyboard.flat()[1].callback_data as string;
  const answered = e.tg.callbackAnswers.length;
  e.tg.userPresses(BOT, notice, deny, OWNER);
  await waitFor(() => e.tg.callbackAnswers.length === answered + 1, 'the denial');
  assert.equal(e.tg.callbackAnswers.at(-1)!.text, 'Denied: Bob stays out.');
  assert.ok(!(await allowed()).includes(bob.id));
  const pending = ((await e.api('GET', `/api/v1/assistants/${id}/pairings`)).json as any).data as any[];
  assert.ok(!pending.some((p) => p.code === code), 'the denied code is no longer pending');
});

async function waitFor(cond: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

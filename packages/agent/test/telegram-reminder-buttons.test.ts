// /reminders offers a cancel button per reminder (DESIGN §9.4, issue 62): pressing one cancels that
// reminder of the presser's own, the button goes and the others stay; somebody else pressing it (a
// forwarded list) cancels nothing. Against FakeTelegram's callback queries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { userData } from '../src/storage/user-data.js';
import { fakeTelegramBed, waitUntil } from './helpers/bed.js';
import { withServe } from './helpers/serve.js';

const TOKEN = '7000000064:AAreminderButtonsFakeTokenForTests_ab';
const { tg, provider } = fakeTelegramBed(TOKEN);
const ana = { id: 6401, first_name: 'Ana' };

test('each reminder has its cancel button; only its owner can press it away', () =>
  withServe({ provider, telegram: tg, botToken: TOKEN }, async (s) => {
    await waitUntil(() => s.agent.health().ready, 'the bot connects');
    const later = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    provider.queue.push({
      toolCalls: [
        { name: 'schedule_message', arguments: { text: 'water the plants', at: later(2) } },
        { name: 'schedule_message', arguments: { text: 'call mum', at: later(3) } },
      ],
    });
    provider.queue.push({ content: 'Both set.' });
    tg.userSends(TOKEN, ana.id, { text: 'remind me twice', from: ana });
    await tg.waitForSent((m) => m.chat_id === ana.id && m.text === 'Both set.');

    tg.userSends(TOKEN, ana.id, { text: '/reminders', from: ana });
    const list = await tg.waitForSent((m) => m.chat_id === ana.id && m.text.startsWith('Your scheduled messages'));
    const rows = (list.reply_markup as any).inline_keyboard as Array<Array<{ text: string; callback_data: string }>>;
    assert.deepEqual(
      rows.map((r) => r[0]!.text),
      ['Cancel “water the plants”', 'Cancel “call mum”'],
    );

    const eve = { id: 6402, first_name: 'Eve' };
    tg.userPresses(TOKEN, list, rows[0]![0]!.callback_data, eve);
    await waitUntil(() => tg.callbackAnswers.length === 1, 'the refusal');
    assert.equal(tg.callbackAnswers[0]!.text, 'No scheduled message of yours has that id.');
    assert.equal(userData(s.store).schedules.list('test-agent', `tg:${ana.id}`).length, 2);

    tg.userPresses(TOKEN, list, rows[0]![0]!.callback_data, ana);
    await waitUntil(() => tg.callbackAnswers.length === 2, 'the cancel');
    assert.equal(tg.callbackAnswers[1]!.text, 'Cancelled.');
    assert.deepEqual(
      userData(s.store)
        .schedules.list('test-agent', `tg:${ana.id}`)
        .map((r) => r.text),
      ['call mum'],
    );
    await waitUntil(() => (list.reply_markup as any).inline_keyboard.length === 1, 'the pressed button gone');
    assert.equal((list.reply_markup as any).inline_keyboard[0][0].text, 'Cancel “call mum”');
  }));

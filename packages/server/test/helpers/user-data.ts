// A user's data on an agent, for tests that move or kill its pod: a remembered fact and a pending
// reminder left through Telegram, and the checks that they came through.
import assert from 'node:assert/strict';
import type { E2E } from './e2e.js';

export const REMINDER = '⏰ water the plants';

/** Chat `chat` has the bot remember "The user is called Ada." and schedule REMINDER 15 s from now;
 *  returns when it is due. */
export async function leaveUserData(e: E2E, bot: string, chat: number): Promise<number> {
  e.provider.queue.push({ toolCalls: [{ name: 'remember', arguments: { fact: 'The user is called Ada.' } }] });
  e.provider.queue.push({ content: 'Noted, Ada.' });
  e.tg.userSends(bot, chat, { text: 'remember my name is Ada' });
  await e.tg.waitForSent((m) => m.chat_id === chat && m.text === 'Noted, Ada.');
  const due = Date.now() + 15_000;
  e.provider.queue.push({
    toolCalls: [{ name: 'schedule_message', arguments: { text: 'water the plants', at: new Date(due).toISOString() } }],
  });
  e.provider.queue.push({ content: 'Reminder set.' });
  e.tg.userSends(bot, chat, { text: 'remind me to water the plants' });
  await e.tg.waitForSent((m) => m.chat_id === chat && m.text === 'Reminder set.');
  return due;
}

/** The next turn in `chat` carries the remembered fact in its system prompt. */
export async function assertRemembersAda(e: E2E, bot: string, chat: number, message: string): Promise<void> {
  e.provider.queue.push({ content: 'You are Ada.' });
  e.tg.userSends(bot, chat, { text: 'who am I?' });
  await e.tg.waitForSent((m) => m.chat_id === chat && m.text === 'You are Ada.');
  const call = e.provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.ok(
    call.some((m) => m.role === 'system' && m.content.includes('The user is called Ada.')),
    message,
  );
}

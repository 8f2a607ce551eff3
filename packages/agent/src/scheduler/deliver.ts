// What a due occurrence becomes, whatever the channel: a reminder is sent as it is; a task is
// answered by a turn in its chat, then sent. Everything goes out through the channel's Outbound,
// and the channel alone reads its keys (channels/channel.ts, Scheduled): the scheduler never
// names Telegram, so a reminder asked for on WhatsApp goes back to WhatsApp.
import type { Logger } from 'pino';
import { type Channel, NotSentError } from '../channels/channel.js';
import { providerFailure, type TurnEvent } from '../core/events.js';
import type { InboundMessage } from '../core/inbound.js';
import type { Schedule } from '../storage/schedules.js';
import type { DeliveryOutcome } from './scheduler.js';

export interface DeliverDeps {
  agent: string;
  /** The assistant's running channels now. */
  channels(): readonly Channel[];
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  /** The owner's reminders switch (DESIGN §7.1): off, due occurrences pass silently. */
  remindersOn(): boolean;
  log: Logger;
}

/** The channel a schedule's chat belongs to, with its own id of that chat. */
export function channelOfChat(channels: readonly Channel[], chat: string) {
  for (const channel of channels) {
    const chatId = channel.scheduled.chatOf(chat);
    if (chatId !== undefined) return { channel, chatId };
  }
  return undefined;
}

/** Whether `s` can go out now: its channel runs and is connected (else the row waits, unclaimed). */
export function readyFor(channels: readonly Channel[], s: Schedule): boolean {
  return channelOfChat(channels, s.chat)?.channel.scheduled.ready() ?? false;
}

export async function deliverSchedule(d: DeliverDeps, s: Schedule): Promise<DeliveryOutcome | 'unsent'> {
  const target = channelOfChat(d.channels(), s.chat);
  if (!target) return 'skipped';
  if (!d.remindersOn()) return 'skipped';
  const { channel, chatId } = target;
  const out = channel.outbound;
  // A scheduled task that did not run is told once, with which task and why; not tried again.
  const refuse = (why: 'dailyLimit' | Error) =>
    out.sendText(chatId, `⏰ ${s.text}\n\n${channel.scheduled.refusal(why, chatId)}`);
  // The owner's access rules hold for scheduled turns too, before any model call (decision 0024).
  const admitted = channel.scheduled.admit(s.user, s.task);
  if (admitted === 'first_over') {
    await refuse('dailyLimit');
    return 'refused';
  }
  if (admitted !== 'ok') return 'skipped';
  if (!s.task) {
    try {
      // Not sent at all (a part after the first that was not sent is a plain error: outbound.ts).
      await out.sendText(chatId, `⏰ ${s.text}`);
    } catch (err) {
      if (err instanceof NotSentError) return 'unsent';
      throw err;
    }
    return 'sent';
  }
  let answer = '';
  const signal = channel.scheduled.signal;
  try {
    for await (const ev of d.respond(channel.scheduled.inbound(chatId, s.user, s.text), signal)) {
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'done') answer = ev.content;
    }
  } catch (err) {
    // The assistant stopped or moved mid-turn: nothing to tell on a closed channel.
    if (signal.aborted) throw err;
    // Refused (credits) or failed: told once, not retried (decision 0024, "a refused task").
    d.log.warn({ agent: d.agent, schedule: s.id, err: (err as Error).message }, 'scheduled task failed');
    await refuse(err as Error);
    return providerFailure(err) === 'credits' ? 'refused' : 'failed';
  }
  if (!answer) return 'skipped';
  await out.sendText(chatId, answer);
  return 'sent';
}

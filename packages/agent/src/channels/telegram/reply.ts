// Answers one Telegram message: the core's events in, messages out.
import type { Context } from 'grammy';
import type { Logger } from 'pino';
import type { TurnEvent } from '../../core/events.js';
import type { InboundMessage } from '../../core/inbound.js';
import { ProviderError } from '../../model/provider.js';
import { splitMessage } from './render/split.js';
import type { Texts } from './texts/index.js';

export interface ReplyDeps {
  agent: string;
  log: Logger;
  respond(inbound: InboundMessage, signal: AbortSignal): AsyncIterable<TurnEvent>;
  signal: AbortSignal;
}

export async function reply(d: ReplyDeps, ctx: Context, inbound: InboundMessage, texts: Texts) {
  const typing = () => ctx.replyWithChatAction('typing').catch(() => {});
  void typing();
  const timer = setInterval(typing, 4500);
  try {
    let answer = '';
    for await (const ev of d.respond(inbound, d.signal)) {
      if (ev.type === 'error') throw ev.error;
      if (ev.type === 'done') answer = ev.content;
    }
    if (d.signal.aborted) return;
    for (const part of splitMessage(answer || '…')) await ctx.reply(part);
  } catch (err) {
    if (d.signal.aborted) return;
    d.log.warn({ agent: d.agent, err: (err as Error).message }, 'telegram reply failed');
    await ctx
      .reply(err instanceof ProviderError && err.kind === 'credits' ? texts.credits : texts.failed)
      .catch(() => {});
  } finally {
    clearInterval(timer);
  }
}

// In groups, the bot speaks when spoken to (settings.groups, DESIGN §7.2): "mention" answers a
// message that mentions its @username or replies to one of its messages (commands are handled
// before this, by grammY's command(), which already ignores commands addressed to other bots);
// "off" answers nothing, "all" everything. Everything else ends here: no model call.
// Two gates: addressedOnly runs before access, so a group's chatter never draws a refusal, a
// pairing code or a count against a daily cap; mentionGate, before an answer, keeps commands
// Berth does not know (and everything in "off") from the model.
import type { Context, NextFunction } from 'grammy';
import { roomOf } from './room.js';

export type GroupMode = 'off' | 'mention' | 'all';

export const isGroup = (ctx: Context) => ctx.chat?.type === 'group' || ctx.chat?.type === 'supergroup';

/** Whether the message addresses this bot, and its text without the bot's @username. */
export function addressing(ctx: Context, msg = ctx.message): { addressed: boolean; text: string } {
  // A photo, voice note or document carries its words (and mentions) as a caption.
  const text = msg?.text ?? msg?.caption ?? '';
  if (!msg || !isGroup(ctx)) return { addressed: true, text };
  const me = `@${ctx.me.username}`.toLowerCase();
  let stripped = '';
  let at = 0;
  let mentioned = false;
  for (const e of msg.entities ?? msg.caption_entities ?? []) {
    if (e.type !== 'mention' || text.slice(e.offset, e.offset + e.length).toLowerCase() !== me) continue;
    mentioned = true;
    stripped += text.slice(at, e.offset);
    at = e.offset + e.length;
  }
  stripped = (stripped + text.slice(at)).replace(/[ \t]{2,}/g, ' ').trim();
  // In a forum topic every message carries the topic's opening (service) message as its reply: one
  // the bot opened would otherwise make every message there a reply to the bot.
  const replied = msg.reply_to_message;
  const repliesToBot = !replied?.forum_topic_created && replied?.from?.id === ctx.me.id;
  return { addressed: mentioned || repliesToBot, text: mentioned ? stripped : text };
}

/** Whether the message is a command for this bot: `/cmd`, or `/cmd@thisbot` but not `@otherbot`. */
function commandForMe(ctx: Context): boolean {
  const msg = ctx.message;
  const text = msg?.text ?? msg?.caption ?? '';
  const first = (msg?.entities ?? msg?.caption_entities)?.[0];
  if (first?.type !== 'bot_command' || first.offset !== 0) return false;
  const at = text.slice(0, first.length).split('@')[1];
  return at === undefined || at.toLowerCase() === ctx.me.username.toLowerCase();
}

/** Groups: only what is addressed to the bot goes on to access, Berth's commands and the model. */
export function addressedOnly(ctx: Context, next: NextFunction) {
  if (!ctx.message || !isGroup(ctx)) return next();
  const m: GroupMode = roomOf(ctx).settings().groups;
  // "off" still answers Berth's own commands (/help, /reset), as it did before this gate.
  if (m === 'all' || commandForMe(ctx) || (m === 'mention' && addressing(ctx).addressed)) return next();
}

export function mentionGate(ctx: Context, next: NextFunction) {
  if (!isGroup(ctx)) return next();
  const m: GroupMode = roomOf(ctx).settings().groups;
  if (m === 'off') return;
  if (m === 'all' || addressing(ctx).addressed) return next();
}

// The owner's access rules (settings.access) for a channel whose end users are let in by a list of
// their ids (Discord user ids, WhatsApp numbers). Telegram has its own (telegram/middleware/access.ts):
// only its users can pair, so only there does pairing mode admit more than the list.
import type { AssistantSettings } from '@berth/contracts/settings';
import { channelUser } from '../core/inbound.js';
import type { ChannelContext, ScheduledAdmission } from './channel.js';

type Access = AssistantSettings['access'];
/** The settings.access lists of string ids (Telegram's are numbers). */
type IdList = { [K in keyof Access]-?: NonNullable<Access[K]> extends readonly string[] ? K : never }[keyof Access];

/** A channel's end users in settings.access: its channel name, and its lists of allowed and blocked ids. */
export interface ListedAccess {
  channel: string;
  allowed: IdList;
  blocked: IdList;
}

/**
 * Blocked ids are refused in every mode; allowlist and pairing modes let in the listed ids (pairing
 * codes are approved into Telegram ids, so on these channels pairing admits the list). A `counted`
 * message takes one of the user's daily replies, asked of the access store at `now()`.
 */
export function admitListed(
  ctx: Pick<ChannelContext, 'agent' | 'settings' | 'access'>,
  lists: ListedAccess,
  id: string,
  counted: boolean,
  now: () => number,
): ScheduledAdmission {
  const rules = ctx.settings().access;
  if (rules[lists.blocked]?.includes(id)) return 'not_allowed';
  if (rules.mode !== 'open' && !rules[lists.allowed]?.includes(id)) return 'not_allowed';
  if (!counted || rules.perUserDailyReplies === null) return 'ok';
  return ctx.access.countReply(ctx.agent, channelUser(lists.channel, id), rules.perUserDailyReplies, now());
}

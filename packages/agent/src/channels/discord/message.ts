// What the channel reads of a Discord message (MESSAGE_CREATE) and whether it was addressed to the
// bot (DESIGN §9.1): DMs always; in servers only a mention of the bot or a reply to one of its
// messages (an @everyone or a role mention alone is not one). Bots, the bot itself included, are
// never answered, and system messages (joins, pins) are not words. Pure, table-tested.
import type { DiscordAttachment } from './media.js';

export interface DiscordUserPayload {
  id: string;
  username: string;
  global_name?: string | null;
  bot?: boolean;
}

export interface DiscordMessagePayload {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: DiscordUserPayload;
  member?: { nick?: string | null };
  content: string;
  type: number;
  mentions?: DiscordUserPayload[];
  mention_everyone?: boolean;
  referenced_message?: { author?: DiscordUserPayload } | null;
  attachments?: DiscordAttachment[];
  /** Message flags: IS_VOICE_MESSAGE (1 << 13) among them. */
  flags?: number;
}

/** DEFAULT and REPLY: the only message types a person writes. */
const WORDS = new Set([0, 19]);

export interface Addressed {
  /** The words with the bot's mention taken out. */
  text: string;
  /** How the author is shown (server nickname, display name, then username). */
  name: string;
  inGuild: boolean;
}

export function addressed(m: DiscordMessagePayload, botId: string): Addressed | undefined {
  if (m.author.bot || m.author.id === botId || !WORDS.has(m.type)) return undefined;
  const inGuild = m.guild_id !== undefined;
  const mentioned = (m.mentions ?? []).some((u) => u.id === botId);
  const replied = m.referenced_message?.author?.id === botId;
  if (inGuild && !mentioned && !replied) return undefined;
  const text = m.content.replace(new RegExp(` ?<@!?${botId}> ?`, 'g'), ' ').trim();
  const name = m.member?.nick || m.author.global_name || m.author.username;
  return { text, name, inGuild };
}

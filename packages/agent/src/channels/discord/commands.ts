// /reset and /help as Discord slash commands (DESIGN §9.1): registered per application with one
// bulk overwrite (PUT /applications/{id}/commands, idempotent), described in every language Berth's
// sentences have (description_localizations), answered through the interaction callback in the
// locale of the user who ran them (interaction.locale), unless the owner fixed a language.
import { en, LANGUAGES, type Texts, textsFor } from '../telegram/texts/index.js';

/** Discord's locale names for the languages Berth's sentences are written in. */
const DISCORD_LOCALE: Record<string, string[]> = {
  de: ['de'],
  es: ['es-ES', 'es-419'],
  fr: ['fr'],
  pt: ['pt-BR'],
  ru: ['ru'],
};

const localized = (pick: (t: Texts) => string) =>
  Object.fromEntries(
    LANGUAGES.filter((l) => l !== 'en').flatMap((l) =>
      (DISCORD_LOCALE[l] ?? []).map((loc) => [loc, pick(textsFor(l, undefined))]),
    ),
  );

/** A CHAT_INPUT command (1) usable in servers (0) and DMs with the bot (1), for a server install (0). */
const command = (name: string, key: 'commandReset' | 'commandHelp') => ({
  name,
  type: 1,
  description: en[key],
  description_localizations: localized((t) => t[key]),
  contexts: [0, 1],
  integration_types: [0],
});

export const slashCommands = () => [command('reset', 'commandReset'), command('help', 'commandHelp')];

/** /help's text: the sentence and the two commands Discord's menu shows. */
export const discordHelp = (t: Texts) => `${t.help}\n\n/help — ${t.commandHelp}\n/reset — ${t.commandReset}`;

export interface InteractionPayload {
  id: string;
  application_id: string;
  type: number;
  token: string;
  channel_id?: string;
  guild_id?: string;
  locale?: string;
  data?: { name?: string };
  member?: { user?: { id: string }; permissions?: string };
  user?: { id: string };
}

/** Manage Messages or Administrator: who may start a server channel's conversation over. */
const MODERATOR = (1n << 13n) | (1n << 3n);
export const mayReset = (i: InteractionPayload) =>
  i.guild_id === undefined || (BigInt(i.member?.permissions ?? '0') & MODERATOR) !== 0n;

// One catalog of Berth's own sentences on Telegram (not the model's words): English, the fallback,
// and translations key for key. Chosen by settings.language, else the user's language_code.
import { de } from './de.js';
import { en, type Texts } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { pt } from './pt.js';
import { ru } from './ru.js';

export type { Texts } from './en.js';
export { en };

const CATALOG: Record<string, Texts> = { en, de, es, fr, pt, ru };

/** The languages with a translation, English first. */
export const LANGUAGES = Object.keys(CATALOG);

/**
 * The sentences for a user: the assistant's language when it is not "auto", else the user's
 * Telegram language_code; "pt-BR" falls back to "pt", anything unknown to English.
 */
export function textsFor(setting: string | undefined, languageCode: string | undefined): Texts {
  const wanted = setting && setting !== 'auto' ? setting : languageCode;
  if (!wanted) return en;
  const lower = wanted.toLowerCase();
  return CATALOG[lower] ?? CATALOG[lower.split('-')[0]!] ?? en;
}

/** The command menu in one language (setMyCommands): memory and reminders only when they are on. */
export const menu = (t: Texts, on: { memory: boolean; reminders: boolean } = { memory: false, reminders: false }) => [
  { command: 'start', description: t.commandStart },
  { command: 'help', description: t.commandHelp },
  { command: 'reset', description: t.commandReset },
  ...(on.memory
    ? [
        { command: 'memory', description: t.commandMemory },
        { command: 'forget', description: t.commandForget },
      ]
    : []),
  ...(on.reminders ? [{ command: 'reminders', description: t.commandReminders }] : []),
  { command: 'timezone', description: t.commandTimezone },
];

/** /help: the sentence, then every command the menu shows, generated from it (DESIGN §9.4). */
export const helpText = (t: Texts, on: { memory: boolean; reminders: boolean }) =>
  `${t.help}\n\n${menu(t, on)
    .map((c) => `/${c.command} — ${c.description}`)
    .join('\n')}`;

/** A sentence of the catalog with its {placeholders} filled in. */
export const fill = (sentence: string, values: Record<string, string | number>) =>
  sentence.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));

export type MenuCall = { commands: ReturnType<typeof menu>; language_code?: string };

/**
 * Every setMyCommands call a bot's menu takes: the default (no language_code) and one per
 * translated language. A fixed settings.language puts that language in all of them.
 */
export function menuCalls(language: string | undefined, on: { memory: boolean; reminders: boolean }): MenuCall[] {
  return [undefined, ...LANGUAGES.filter((l) => l !== 'en')].map((lang) => ({
    commands: menu(lang ? textsFor(language, lang) : textsFor(language, 'en'), on),
    ...(lang ? { language_code: lang } : {}),
  }));
}

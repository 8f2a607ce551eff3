// One catalog of Berth's own sentences on Telegram (not the model's words): English, the fallback,
// and translations key for key. Chosen by settings.language, else the user's language_code.
import { en, type Texts } from './en.js';

export type { Texts } from './en.js';
export { en };

const CATALOG: Record<string, Texts> = { en };

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

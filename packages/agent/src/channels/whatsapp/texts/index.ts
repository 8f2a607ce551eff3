// One catalogue of Berth's own sentences on WhatsApp (not the model's words): English, the
// fallback, and translations key for key. Meta's webhook carries no locale, so the language is the
// owner's settings.language, else the one of the sender's country calling code (decision
// 0033-whatsapp-language), else English.
import { de } from './de.js';
import { en, type WhatsAppTexts } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { pt } from './pt.js';
import { ru } from './ru.js';
import { languageOfNumber } from '../number-language.js';

export type { WhatsAppTexts } from './en.js';
export { en };

const CATALOGUE: Record<string, WhatsAppTexts> = { en, de, es, fr, pt, ru };

/** The languages with a translation, English first. */
export const LANGUAGES = Object.keys(CATALOGUE);

/**
 * The sentences for the sender `waId`: the assistant's language when it is not "auto" ("pt-BR"
 * falls back to "pt", one without a translation to English), else the language of the number's
 * country, else English.
 */
export function textsFor(setting: string | undefined, waId: string | undefined): WhatsAppTexts {
  if (setting && setting !== 'auto') {
    const lower = setting.toLowerCase();
    return CATALOGUE[lower] ?? CATALOGUE[lower.split('-')[0]!] ?? en;
  }
  const spoken = waId ? languageOfNumber(waId) : undefined;
  return (spoken && CATALOGUE[spoken]) || en;
}

/** A sentence of the catalogue with its {placeholders} filled in. */
export const fill = (s: string, values: Record<string, string>) => s.replace(/\{(\w+)\}/g, (_, k) => values[k] ?? '');

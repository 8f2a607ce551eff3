// A text Berth sends to Telegram as the owner wrote it (settings.welcomeMessage), checked as
// Telegram checks it: at most 4,096 UTF-16 code units (an emoji outside the BMP counts 2; JSON
// Schema's maxLength counts it 1) and not empty once Telegram trims the spaces. Issue 57 R10: a
// welcome of 2,049 emoji, or of spaces only, was stored and then refused by Telegram on every
// /start. A JSON Schema `format`, so one name serves TypeBox (the agent), Ajv (the control plane's
// routes) and the OpenAPI document.
import { Format } from 'typebox/format';

export const TELEGRAM_TEXT_FORMAT = 'telegram-text';
/** Telegram's limit of a message's text, in UTF-16 code units. */
export const TELEGRAM_TEXT_MAX = 4096;

export function isTelegramText(value: string): boolean {
  // String length is UTF-16 code units, as Telegram counts; trim() drops what Telegram drops.
  return value.length <= TELEGRAM_TEXT_MAX && value.trim().length > 0;
}

/** What an owner reads when a text fails the format. */
export const TELEGRAM_TEXT_RULE = `must hold more than spaces and at most ${TELEGRAM_TEXT_MAX} UTF-16 code units, as Telegram counts (an emoji counts as 2)`;

Format.Set(TELEGRAM_TEXT_FORMAT, isTelegramText);

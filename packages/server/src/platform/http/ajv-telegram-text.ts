// Teaches Fastify's Ajv the "telegram-text" format of the shared settings schema (contracts'
// telegram-text.ts): the same check the agent's TypeBox runs, so a text Telegram would refuse is
// refused when the owner saves it.
import type { Ajv } from 'ajv';
import { isTelegramText, TELEGRAM_TEXT_FORMAT } from '@berth/contracts/settings';

export function telegramTextFormat(ajv: Ajv) {
  ajv.addFormat(TELEGRAM_TEXT_FORMAT, { type: 'string', validate: isTelegramText });
  return ajv;
}

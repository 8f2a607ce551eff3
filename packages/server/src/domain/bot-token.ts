// A Telegram bot token is "<bot id>:<secret>"; checking the shape early turns an obvious typo into
// a 400 instead of a failed deploy a minute later.
import { AppError } from '../platform/errors/app-error.js';

const TELEGRAM_TOKEN = /^\d{5,20}:[A-Za-z0-9_-]{35,}$/;

/** The 400 INVALID_INPUT that activate and update give for a token of the wrong shape. */
export function assertTelegramTokenShape(token: string): void {
  if (!TELEGRAM_TOKEN.test(token)) {
    throw new AppError(
      'INVALID_INPUT',
      'messengerBotToken does not look like a Telegram bot token ("<digits>:<secret>", as @BotFather gives it).',
    );
  }
}

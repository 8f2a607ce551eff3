// A Telegram bot token is "<bot id>:<secret>"; checking the shape early turns an obvious typo into
// a 400 instead of a failed deploy a minute later.
const TELEGRAM_TOKEN = /^\d{5,20}:[A-Za-z0-9_-]{35,}$/;

export function isTelegramTokenShape(token: string): boolean {
  return TELEGRAM_TOKEN.test(token);
}

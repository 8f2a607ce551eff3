/**
 * Who a turn is for, as the per-user tools see it. `user` is namespaced by channel ("tg:42",
 * "api:alice"), so an API caller naming user "42" can never reach Telegram user 42's memory.
 * `chat` is where a reminder asked for here is delivered; the API has none.
 */
export interface EndUser {
  agent: string;
  user: string;
  chat?: string;
}

export const telegramUser = (userId: number) => `tg:${userId}`;
export const apiUser = (user: string) => `api:${user}`;
export const telegramChat = (chatId: number) => `telegram:${chatId}`;

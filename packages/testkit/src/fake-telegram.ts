// A loopback Telegram Bot API: getMe, getUpdates (long polling, offset confirmation),
// sendMessage, sendChatAction, deleteWebhook; 401 for a rejected token; 429 on demand.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { close, createServer, listen, readJson, sendJson } from './http.js';

interface BotState {
  id: number;
  username: string;
  updates: any[];
  nextUpdateId: number;
  waiters: Array<() => void>;
  getUpdatesCalls: number;
  activePolls: number;
}

export interface SentMessage {
  token: string;
  chat_id: number;
  text: string;
  [k: string]: unknown;
}

export class FakeTelegram {
  readonly bots = new Map<string, BotState>();
  readonly sent: SentMessage[] = [];
  readonly actions: Array<{ token: string; chat_id: number; action: string }> = [];
  /** Methods that answer 429 with retry_after once each time they are listed. */
  readonly throttle: Array<{ method: string; retryAfter: number }> = [];
  /** Methods that answer 502 until removed (Telegram having a bad day). */
  readonly broken = new Set<string>();
  url = '';
  private messageId = 1;
  private sentWaiters: Array<() => void> = [];
  private server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));

  async start(): Promise<this> {
    this.url = await listen(this.server);
    return this;
  }

  async stop() {
    for (const bot of this.bots.values()) bot.waiters.splice(0).forEach((w) => w());
    await close(this.server);
  }

  addBot(token: string, username = `bot${this.bots.size + 1}_bot`): void {
    const id = Number(token.split(':')[0]);
    this.bots.set(token, {
      id,
      username,
      updates: [],
      nextUpdateId: 1000,
      waiters: [],
      getUpdatesCalls: 0,
      activePolls: 0,
    });
  }

  polls(token: string) {
    return this.bots.get(token)?.getUpdatesCalls ?? 0;
  }
  activePolls(token: string) {
    return this.bots.get(token)?.activePolls ?? 0;
  }

  /** A user writes to the bot. Returns the update id. */
  userSends(token: string, chatId: number, message: { text?: string; sticker?: object; photo?: object[] }): number {
    const bot = this.bots.get(token)!;
    const update_id = bot.nextUpdateId++;
    // Telegram marks a leading /command with a bot_command entity; grammY's command() needs it.
    const command = message.text && /^\/[A-Za-z0-9_]+(@\w+)?/.exec(message.text);
    const entities = command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {};
    bot.updates.push({
      update_id,
      message: {
        message_id: this.messageId++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: 'private', first_name: 'Test' },
        from: { id: chatId, is_bot: false, first_name: 'Test' },
        ...message,
        ...entities,
      },
    });
    bot.waiters.splice(0).forEach((w) => w());
    return update_id;
  }

  async waitForSent(predicate: (m: SentMessage) => boolean, timeoutMs = 10_000): Promise<SentMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.sent.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching sendMessage within ${timeoutMs} ms; sent: ${JSON.stringify(this.sent.map((m) => m.text.slice(0, 60)))}`,
        );
      await new Promise<void>((r) => {
        this.sentWaiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url?.split('?')[0] ?? '');
    if (!m) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = m as unknown as [string, string, string];
    const params = await readJson(req);
    const bot = this.bots.get(token);
    if (!bot) return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (this.broken.has(method)) return sendJson(res, 502, { ok: false, error_code: 502, description: 'Bad Gateway' });
    const t = this.throttle.findIndex((x) => x.method === method);
    if (t >= 0) {
      const { retryAfter } = this.throttle.splice(t, 1)[0]!;
      return sendJson(res, 429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${retryAfter}`,
        parameters: { retry_after: retryAfter },
      });
    }
    switch (method) {
      case 'getMe':
        return sendJson(res, 200, {
          ok: true,
          result: {
            id: bot.id,
            is_bot: true,
            first_name: bot.username,
            username: bot.username,
            can_join_groups: true,
            can_read_all_group_messages: false,
            supports_inline_queries: false,
          },
        });
      case 'deleteWebhook':
        return sendJson(res, 200, { ok: true, result: true });
      case 'getUpdates': {
        bot.getUpdatesCalls++;
        const offset = Number(params.offset ?? 0);
        // Confirming: updates below the offset are gone for good, as on the real API.
        if (offset) bot.updates = bot.updates.filter((u) => u.update_id >= offset);
        const timeout = Math.min(Number(params.timeout ?? 0), 50) * 1000;
        const deadline = Date.now() + timeout;
        bot.activePolls++;
        // A client that hangs up ends its long poll at once, as on the real API.
        const wake = () => bot.waiters.splice(0).forEach((w) => w());
        res.on('close', wake);
        try {
          while (bot.updates.length === 0 && Date.now() < deadline && !res.destroyed && this.bots.get(token) === bot) {
            await new Promise<void>((r) => {
              bot.waiters.push(r);
              setTimeout(r, Math.max(0, deadline - Date.now())).unref();
            });
          }
        } finally {
          bot.activePolls--;
        }
        if (res.destroyed) return;
        return sendJson(res, 200, { ok: true, result: bot.updates.slice(0, Number(params.limit ?? 100)) });
      }
      case 'sendMessage': {
        const text = String(params.text ?? '');
        if (!text)
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message text is empty' });
        if (text.length > 4096)
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: message is too long' });
        const msg = { ...params, token, chat_id: Number(params.chat_id), text };
        this.sent.push(msg);
        this.sentWaiters.splice(0).forEach((w) => w());
        return sendJson(res, 200, {
          ok: true,
          result: {
            message_id: this.messageId++,
            date: Math.floor(Date.now() / 1000),
            chat: { id: msg.chat_id, type: 'private' },
            text,
          },
        });
      }
      case 'sendChatAction':
        this.actions.push({ token, chat_id: Number(params.chat_id), action: String(params.action) });
        return sendJson(res, 200, { ok: true, result: true });
      default:
        return sendJson(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method} not found` });
    }
  }
}

// A loopback Telegram Bot API: getMe, getUpdates (long polling, offset confirmation),
// sendMessage, sendChatAction, deleteWebhook; 401 for a rejected token; 429 on demand; getFile and
// GET /file/bot<token>/<file_path> with bytes a test gives it (file ids belong to one bot, as on
// the real API), optionally announcing a wrong size or breaking the download off.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
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

/** A file a test put on the fake, as getFile describes it. */
export interface StoredFile {
  token: string;
  file_id: string;
  file_unique_id: string;
  file_path: string;
  bytes: Buffer;
  /** What getFile and the message announce; the real length unless the test lies. */
  file_size: number;
  /** The download sends this many bytes (with the full Content-Length) and breaks off. */
  truncateTo?: number;
}

export type FileKind = 'photo' | 'voice' | 'audio' | 'document';
/** Telegram's file ids begin with the file type's tag; 20 MB is the Bot API's getFile limit. */
const FILE_ID_TAG: Record<FileKind, string> = {
  photo: 'AgACAgIAAxkBAA',
  voice: 'AwACAgIAAxkBAA',
  audio: 'CQACAgIAAxkBAA',
  document: 'BQACAgIAAxkBAA',
};
const FILE_DIR: Record<FileKind, string> = { photo: 'photos', voice: 'voice', audio: 'music', document: 'documents' };
export const GETFILE_MAX_BYTES = 20 * 1024 * 1024;

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
  /** Files by file_id; getFile finds only the ones of the asking bot. */
  readonly files = new Map<string, StoredFile>();
  /** Downloads served, by file_path (to check that a refused file was never fetched). */
  readonly downloads: string[] = [];
  url = '';
  private messageId = 1;
  private fileSeq = 1;
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
  userSends(
    token: string,
    chatId: number,
    message: {
      text?: string;
      caption?: string;
      sticker?: object;
      photo?: object[];
      voice?: object;
      audio?: object;
      document?: object;
    },
  ): number {
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

  /** Puts a file on the fake for this bot. `announce` lies about its size; `truncateTo` breaks the download. */
  addFile(
    token: string,
    kind: FileKind,
    bytes: Buffer,
    opts: { announce?: number; truncateTo?: number; ext?: string } = {},
  ): StoredFile {
    const seq = this.fileSeq++;
    const file: StoredFile = {
      token,
      file_id: `${FILE_ID_TAG[kind]}${randomBytes(45).toString('base64url')}`,
      file_unique_id: `AQAD${randomBytes(9).toString('base64url')}`,
      file_path: `${FILE_DIR[kind]}/file_${seq}.${opts.ext ?? { photo: 'jpg', voice: 'oga', audio: 'mp3', document: 'bin' }[kind]}`,
      bytes,
      file_size: opts.announce ?? bytes.length,
      ...(opts.truncateTo === undefined ? {} : { truncateTo: opts.truncateTo }),
    };
    this.files.set(file.file_id, file);
    return file;
  }

  /** The `photo` field of a message: Telegram's PhotoSize array, smallest first (here one size). */
  photo(
    token: string,
    bytes: Buffer,
    opts: { width?: number; height?: number; announce?: number; truncateTo?: number } = {},
  ) {
    const f = this.addFile(token, 'photo', bytes, opts);
    return [
      {
        file_id: f.file_id,
        file_unique_id: f.file_unique_id,
        file_size: f.file_size,
        width: opts.width ?? 2,
        height: opts.height ?? 2,
      },
    ];
  }

  /** The `voice` field of a message (Ogg/Opus, as Telegram's clients record). */
  voice(token: string, bytes: Buffer, duration: number, opts: { announce?: number; truncateTo?: number } = {}) {
    const f = this.addFile(token, 'voice', bytes, opts);
    return {
      file_id: f.file_id,
      file_unique_id: f.file_unique_id,
      duration,
      mime_type: 'audio/ogg',
      file_size: f.file_size,
    };
  }

  /** The `document` field of a message. */
  document(
    token: string,
    bytes: Buffer,
    fileName: string,
    mimeType: string,
    opts: { announce?: number; truncateTo?: number } = {},
  ) {
    const ext = fileName.includes('.') ? fileName.split('.').pop() : 'bin';
    const f = this.addFile(token, 'document', bytes, { ...opts, ext });
    return {
      file_id: f.file_id,
      file_unique_id: f.file_unique_id,
      file_name: fileName,
      mime_type: mimeType,
      file_size: f.file_size,
    };
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

  /** GET /file/bot<token>/<file_path>: the bytes, or a download that breaks off when asked to. */
  private download(token: string, path: string, res: ServerResponse) {
    const file = [...this.files.values()].find((f) => f.token === token && f.file_path === path);
    if (!file) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    this.downloads.push(path);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length });
    if (file.truncateTo === undefined) return res.end(file.bytes);
    res.write(file.bytes.subarray(0, file.truncateTo));
    setTimeout(() => res.destroy(), 20);
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const dl = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url?.split('?')[0] ?? '');
    if (dl && req.method === 'GET') return this.download(dl[1]!, decodeURIComponent(dl[2]!), res);
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
      case 'getFile': {
        const file = this.files.get(String(params.file_id ?? ''));
        // A file id is valid for the bot that received it only.
        if (!file || file.token !== token)
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
        if (file.file_size > GETFILE_MAX_BYTES)
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: file is too big' });
        return sendJson(res, 200, {
          ok: true,
          result: {
            file_id: file.file_id,
            file_unique_id: file.file_unique_id,
            file_size: file.file_size,
            file_path: file.file_path,
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

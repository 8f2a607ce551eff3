// A loopback Telegram Bot API: getMe, getUpdates (long polling, offset confirmation; a second
// poller of one token ends the first with 409 Conflict, as Telegram does, and so does another
// program polling it; a revoked token answers 401), sendMessage (with
// parse_mode HTML checked as strictly as Telegram: telegram-html.ts), sendMessageDraft,
// editMessageText, sendChatAction, setMyCommands, getChatMember, deleteWebhook; private chats,
// groups and supergroups with mention and command entities; 401 for a rejected token; 429 on demand;
// getFile and GET /file/bot<token>/<file_path> with bytes a test gives it (file ids belong to one
// bot, as on the real API), optionally announcing a wrong size or breaking the download off; a
// network gone silent (requests taken, never answered) and long polls answered late.
// Webhooks as the Bot API has them: setWebhook (an https URL, or http on a local Bot API server;
// secret_token checked for Telegram's alphabet; allowed_updates), getWebhookInfo, deleteWebhook
// (drop_pending_updates). While a webhook is set, updates are POSTed to it in order with the
// X-Telegram-Bot-Api-Secret-Token header, retried until answered 2xx, and getUpdates answers 409.
// Forum supergroups with topics (message_thread_id, the topic's service message as every message's
// reply_to_message; sending into an unknown topic is refused) and edited messages (edited_message
// updates); getUpdates delivers only the update types in allowed_updates, as Telegram does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { close, createServer, listen, readJson, sendJson } from './http.js';
import { parseTelegramHtml } from './telegram-html.js';
import {
  MEDIA_FIELD,
  mediaObject,
  readMultipart,
  refusalOf,
  type MediaMethod,
  type ParsedRequest,
  type SentMedia,
} from './fake-telegram-media.js';

export interface TelegramUser {
  id: number;
  first_name: string;
  username?: string;
  language_code?: string;
  /** Telegram's own stand-ins (below) and other bots; people are false, the default. */
  is_bot?: boolean;
}

/**
 * The fixed accounts Telegram puts in `from` of a message sent on behalf of a chat (the real
 * sender is then `sender_chat`): a member posting as a channel, and an anonymous administrator.
 */
export const CHANNEL_BOT: TelegramUser = {
  id: 136817688,
  is_bot: true,
  first_name: 'Channel',
  username: 'Channel_Bot',
};
export const GROUP_ANONYMOUS_BOT: TelegramUser = {
  id: 1087968824,
  is_bot: true,
  first_name: 'Group',
  username: 'GroupAnonymousBot',
};

/** A Chat object as `sender_chat` carries it. */
export interface SenderChat {
  id: number;
  type: 'channel' | 'group' | 'supergroup';
  title: string;
  username?: string;
}

export interface DraftCall {
  token: string;
  chat_id: number;
  draft_id: number;
  text: string;
  html?: string;
  at: number;
}

export interface EditCall {
  token: string;
  chat_id: number;
  message_id: number;
  text: string;
  html?: string;
  at: number;
}

interface BotState {
  id: number;
  username: string;
  updates: any[];
  nextUpdateId: number;
  waiters: Array<() => void>;
  getUpdatesCalls: number;
  activePolls: number;
  pollsAnswered: number;
  /** Ends the poll in flight (a newer one took over): it answers 409. */
  preempt: (() => void) | undefined;
  conflicts: number;
  commands: Map<string, Array<{ command: string; description: string }>>;
  setMyCommandsCalls: number;
  /** setMyCommands calls that set a language's menu to what it already was. */
  setMyCommandsRepeats: number;
  /** The last allowed_updates a getUpdates named; undefined: Telegram's default (every common kind). */
  allowedUpdates?: string[];
  webhook?: { url: string; secretToken?: string; allowedUpdates?: string[] };
  /** A delivery to the webhook is under way (updates go one at a time, in order). */
  pumping: boolean;
  lastWebhookError?: { date: number; message: string };
}

/** The kind of an update ("message", "callback_query", …): its one key besides update_id. */
const kindOf = (u: Record<string, unknown>) => Object.keys(u).find((k) => k !== 'update_id');

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
  /** What the user sees: with parse_mode HTML, the text without its tags. */
  text: string;
  /** The HTML as sent, when parse_mode was HTML. */
  html?: string;
  message_id?: number;
  /** When the fake took it (Date.now()). */
  at?: number;
  /** The forum topic it was sent into; absent: the chat as a whole (a forum's General topic). */
  message_thread_id?: number;
  [k: string]: unknown;
}

/** What getUpdates answers while the bot has a webhook set, before and after its long poll. */
const WEBHOOK_CONFLICT = {
  ok: false,
  error_code: 409,
  description:
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
};

export class FakeTelegram {
  readonly bots = new Map<string, BotState>();
  readonly sent: SentMessage[] = [];
  readonly actions: Array<{ token: string; chat_id: number; action: string }> = [];
  /** Methods that answer 429 with retry_after once each time they are listed. */
  readonly throttle: Array<{ method: string; retryAfter: number }> = [];
  /** Methods that answer 502 until removed (Telegram having a bad day). */
  readonly broken = new Set<string>();
  /**
   * Methods answered this many milliseconds late (a far or busy Telegram): what a call does while
   * another is still on the wire. The call takes effect when it is answered.
   */
  readonly slow = new Map<string, number>();
  /** How many calls each broken method has answered 502 (a test waits for the first). */
  readonly brokenAnswers = new Map<string, number>();
  /** Every sendPhoto, sendDocument and sendVoice taken, with the uploaded bytes (fake-telegram-media.ts). */
  readonly media: SentMedia[] = [];
  /** Every sendMessage refused (a 400 for bad HTML, too long, ...), with Telegram's description. */
  readonly refused: Array<{ token: string; method: string; chat_id: number; description: string }> = [];
  readonly drafts: DraftCall[] = [];
  /** answerCallbackQuery calls, in order. */
  readonly callbackAnswers: Array<{ token: string; callback_query_id: string; text?: string }> = [];
  /** Callback queries not answered yet (answering one twice, or an unknown one, is a 400). */
  private readonly callbackQueries = new Set<string>();
  private nextCallbackId = 1;
  readonly edits: EditCall[] = [];
  /** Answer sendMessageDraft with 400, as Telegram does where drafts are not available. */
  refuseDrafts = false;
  /**
   * Refuse this many of the next HTML messages with Telegram's "can't parse entities" (its parser
   * and ours disagreeing one day), to prove the plain-text resend.
   */
  refuseHtml = 0;
  /** getMe calls per token: a bot that (re)starts calls it once (a restart shows as a second call). */
  readonly getMes = new Map<string, number>();
  /** deleteWebhook calls per token (a bot that fights over its token calls it on every 409). */
  readonly webhookDeletes = new Map<string, number>();
  /** Chat administrators, per chat id (getChatMember answers "administrator" for them). */
  readonly admins = new Map<number, Set<number>>();
  /** Messages in each chat by id, the bot's and the users', for replies and edits. */
  private readonly messages = new Map<string, any>();
  /** Files by file_id; getFile finds only the ones of the asking bot. */
  readonly files = new Map<string, StoredFile>();
  /** Downloads served, by file_path (to check that a refused file was never fetched). */
  readonly downloads: string[] = [];
  url = '';
  private messageId = 1;
  private fileSeq = 1;
  private sentWaiters: Array<() => void> = [];
  private server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy())).on(
    'connection',
    () => this.connectionsOpened++,
  );
  /** TCP connections clients opened to this Telegram: a client that keeps its connections opens few. */
  connectionsOpened = 0;

  /**
   * Answers name no keep-alive time (nginx's default): how long an idle connection lives is then
   * the client's choice alone. Off by default, when answers say `Keep-Alive: timeout=60`.
   */
  set namesKeepAlive(on: boolean) {
    this.server.keepAliveTimeout = on ? 60_000 : 0;
  }

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
      pollsAnswered: 0,
      preempt: undefined,
      conflicts: 0,
      commands: new Map(),
      setMyCommandsCalls: 0,
      setMyCommandsRepeats: 0,
      pumping: false,
    });
  }

  /**
   * A local Bot API server (telegram-bot-api --local) takes http webhook URLs; Telegram's own takes
   * https only. Tests that point a webhook at a loopback control plane set it.
   */
  localBotApi = false;
  /** How long a failed webhook delivery waits before it is tried again (Telegram backs off too). */
  webhookRetryMs = 100;
  /** Told of each webhook POST as it leaves (this fake posts one at a time; Telegram uses up to 40 connections). */
  onWebhookPost: ((token: string, update: any) => void) | undefined;
  /** Told of every Bot API call as it arrives (a benchmark times the first call a message causes). */
  onCall: ((method: string, token: string, params: any) => void) | undefined;
  /** Every webhook POST that was answered 2xx: the token and the update. */
  readonly webhookDeliveries: Array<{ token: string; update: any }> = [];

  /** Posts pending updates to the bot's webhook, one at a time, in order, until none is left. */
  private async pump(token: string) {
    const bot = this.bots.get(token);
    if (!bot?.webhook || bot.pumping) return;
    bot.pumping = true;
    try {
      while (bot.webhook && bot.updates.length && this.bots.get(token) === bot) {
        const hook = bot.webhook;
        const update = bot.updates[0];
        const kind = Object.keys(update).find((k) => k !== 'update_id')!;
        if (hook.allowedUpdates?.length && !hook.allowedUpdates.includes(kind)) {
          bot.updates.shift();
          continue;
        }
        let ok = false;
        this.onWebhookPost?.(token, update);
        try {
          const res = await fetch(hook.url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(hook.secretToken ? { 'x-telegram-bot-api-secret-token': hook.secretToken } : {}),
            },
            body: JSON.stringify(update),
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer();
          ok = res.status >= 200 && res.status < 300;
          if (!ok)
            bot.lastWebhookError = {
              date: Math.floor(Date.now() / 1000),
              message: `Wrong response from the webhook: ${res.status}`,
            };
        } catch (err) {
          bot.lastWebhookError = {
            date: Math.floor(Date.now() / 1000),
            message: `Connection failed: ${(err as Error).message}`,
          };
        }
        // Removed only once answered 2xx, and only if it is still the one at the head (a
        // deleteWebhook with drop_pending_updates may have cleared the queue meanwhile).
        if (ok) {
          if (bot.updates[0] === update) bot.updates.shift();
          this.webhookDeliveries.push({ token, update });
        } else await new Promise((r) => setTimeout(r, this.webhookRetryMs).unref());
      }
    } finally {
      bot.pumping = false;
    }
  }

  /**
   * Another program starts polling this bot and keeps at it: every getUpdates of ours is ended by
   * its next poll with 409 Conflict (the poll in flight at once), until otherPollerStops.
   */
  otherPollerStarts(token: string) {
    this.otherPollers.add(token);
    this.bots.get(token)?.preempt?.();
  }
  otherPollerStops(token: string) {
    this.otherPollers.delete(token);
  }
  private readonly otherPollers = new Set<string>();

  /**
   * The owner revokes the token at @BotFather: every call with it answers 401 Unauthorized from now
   * on (the long poll in flight ends), as on the real API. addBot with a new token brings a bot back.
   */
  revokeToken(token: string) {
    const bot = this.bots.get(token);
    this.bots.delete(token);
    bot?.waiters.splice(0).forEach((w) => w());
  }

  /**
   * The longest a long poll is held without updates. Telegram may answer one early with an empty
   * list; tests that wait for a poll to come back whole (a conflict that ended) shorten it.
   */
  longPollCapMs = Number.POSITIVE_INFINITY;

  /**
   * Telegram cannot be reached: open connections are cut and new ones are closed at once (the
   * client sees "other side closed"), until set back to false.
   */
  set unreachable(down: boolean) {
    this.down = down;
    if (down) this.server.closeAllConnections();
  }
  get unreachable() {
    return this.down;
  }
  private down = false;

  /**
   * The network drops packets without an error: connections are taken and requests read, and
   * nothing is ever answered (a long poll in flight included), until set back to false. The
   * client learns it only from its own deadline.
   */
  silent = false;

  /**
   * An empty long poll is answered this long after its timeout (a busy Telegram, a slow network):
   * a healthy poll that is merely late.
   */
  longPollLateMs = 0;

  /** Long polls answered with 200, per token (the late ones included). */
  pollsAnswered(token: string) {
    return this.bots.get(token)?.pollsAnswered ?? 0;
  }

  /** How many long polls were ended by a newer poller of the same token. */
  conflicts(token: string) {
    return this.bots.get(token)?.conflicts ?? 0;
  }

  /** The command menu set with setMyCommands, per language_code ("" for the default). */
  commands(token: string, languageCode = '') {
    return this.bots.get(token)?.commands.get(languageCode);
  }

  /** How many setMyCommands calls this bot made (a restart with an unchanged menu makes none). */
  setMyCommandsCalls(token: string) {
    return this.bots.get(token)?.setMyCommandsCalls ?? 0;
  }

  /** How many of them changed nothing: a language's menu set again to the commands it had. */
  setMyCommandsRepeats(token: string) {
    return this.bots.get(token)?.setMyCommandsRepeats ?? 0;
  }

  /** A user of a group or supergroup writes there; "@username" of the bot becomes a mention entity. */
  groupSends(
    token: string,
    chat: { id: number; type?: 'group' | 'supergroup'; title?: string },
    from: TelegramUser,
    text: string,
    opts: { replyTo?: number } = {},
  ): { updateId: number; messageId: number } {
    const chatObj = { id: chat.id, type: chat.type ?? 'supergroup', title: chat.title ?? 'Test group' };
    return this.push(token, chatObj, from, text, opts.replyTo);
  }

  /**
   * A message sent on behalf of a chat, shaped as Telegram sends it: `from` is Channel_Bot and
   * `sender_chat` the channel when a member posts as their channel; `from` is GroupAnonymousBot
   * and `sender_chat` the group itself when an anonymous administrator writes.
   */
  groupSendsAs(
    token: string,
    chat: { id: number; type?: 'group' | 'supergroup'; title?: string },
    as: { channel: { id: number; title: string; username?: string } } | 'anonymous admin',
    text: string,
    opts: { replyTo?: number } = {},
  ): { updateId: number; messageId: number } {
    const chatObj = { id: chat.id, type: chat.type ?? 'supergroup', title: chat.title ?? 'Test group' };
    const sender_chat: SenderChat = as === 'anonymous admin' ? chatObj : { type: 'channel', ...as.channel };
    const from = as === 'anonymous admin' ? GROUP_ANONYMOUS_BOT : CHANNEL_BOT;
    return this.push(token, chatObj, from, text, opts.replyTo, { sender_chat });
  }

  polls(token: string) {
    return this.bots.get(token)?.getUpdatesCalls ?? 0;
  }

  /** Forum topics by `<chat id>:<message_thread_id>`: the topic's service message. */
  private readonly topics = new Map<string, any>();

  /**
   * A member opens a topic in a forum supergroup: Telegram's service message (forum_topic_created),
   * whose id is the topic's message_thread_id from then on. Returns that id.
   */
  createTopic(token: string, chat: { id: number; title?: string }, from: TelegramUser, name: string): number {
    const chatObj = this.forum(chat);
    const { messageId } = this.push(token, chatObj, from, undefined, undefined, {
      message_thread_id: 0,
      forum_topic_created: { name, icon_color: 7322096 },
      is_topic_message: true,
    });
    const created = this.messages.get(`${chat.id}:${messageId}`);
    created.message_thread_id = messageId;
    this.topics.set(`${chat.id}:${messageId}`, created);
    return messageId;
  }

  /**
   * A member writes in a forum topic, as Telegram shapes it: message_thread_id, is_topic_message,
   * and the topic's service message as reply_to_message (unless they reply to another message).
   */
  topicSends(
    token: string,
    chat: { id: number; title?: string },
    topic: number,
    from: TelegramUser,
    text: string,
  ): { updateId: number; messageId: number } {
    const root = this.topics.get(`${chat.id}:${topic}`);
    if (!root) throw new Error(`no topic ${topic} in chat ${chat.id}`);
    return this.push(token, this.forum(chat), from, text, undefined, {
      message_thread_id: topic,
      is_topic_message: true,
      reply_to_message: root,
    });
  }

  private forum(chat: { id: number; title?: string }) {
    return { id: chat.id, type: 'supergroup', title: chat.title ?? 'Test forum', is_forum: true };
  }

  /**
   * The user edits a message they sent: Telegram delivers an edited_message update with the whole
   * message as it is now (its new text and entities, edit_date).
   */
  userEdits(token: string, chatId: number, messageId: number, text: string): number {
    const bot = this.bots.get(token)!;
    const original = this.messages.get(`${chatId}:${messageId}`);
    if (!original) throw new Error(`no message ${messageId} in chat ${chatId}`);
    const { entities: _old, ...rest } = original;
    const entities = this.entitiesOf(text);
    const edited = {
      ...rest,
      text,
      ...(entities.length ? { entities } : {}),
      edit_date: Math.floor(Date.now() / 1000),
    };
    this.messages.set(`${chatId}:${messageId}`, edited);
    const update_id = bot.nextUpdateId++;
    bot.updates.push({ update_id, edited_message: edited });
    bot.waiters.splice(0).forEach((w) => w());
    return update_id;
  }

  /**
   * Updates of this bot not yet confirmed by a later getUpdates offset: 0 once the bot has
   * fetched everything pushed so far and polled again (what it fetched is in its hands).
   */
  unconfirmed(token: string) {
    return this.bots.get(token)?.updates.length ?? 0;
  }

  /** The message id of a message a user sent (userSends returns the update's id). */
  messageIdOf(token: string, updateId: number): number {
    const id = this.updateMessages.get(`${token}:${updateId}`);
    if (id === undefined) throw new Error(`no message in update ${updateId}`);
    return id;
  }
  private readonly updateMessages = new Map<string, number>();

  /** Updates dropped because getUpdates' allowed_updates did not list their type. */
  readonly undelivered: any[] = [];
  activePolls(token: string) {
    return this.bots.get(token)?.activePolls ?? 0;
  }
  /** The URL Telegram POSTs the bot's updates to, while a webhook is set. */
  webhookUrl(token: string): string | undefined {
    return this.bots.get(token)?.webhook?.url;
  }

  /** A user writes to the bot in a private chat. Returns the update id. */
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
      from?: Partial<TelegramUser>;
    },
  ): number {
    const { from, ...rest } = message;
    const user = { id: chatId, first_name: 'Test', ...from };
    return this.push(
      token,
      { id: chatId, type: 'private', first_name: user.first_name },
      user,
      rest.text,
      undefined,
      rest,
    ).updateId;
  }

  private push(
    token: string,
    chat: { id: number; type: string; [k: string]: unknown },
    from: TelegramUser,
    text: string | undefined,
    replyTo: number | undefined,
    extra: object = {},
  ) {
    const bot = this.bots.get(token)!;
    const update_id = bot.nextUpdateId++;
    const message_id = this.messageId++;
    const entities = text === undefined ? [] : this.entitiesOf(text);
    const replied = replyTo === undefined ? undefined : this.messages.get(`${chat.id}:${replyTo}`);
    const message = {
      message_id,
      date: Math.floor(Date.now() / 1000),
      chat,
      from: { is_bot: false, ...from },
      ...(text === undefined ? {} : { text }),
      ...extra,
      ...(entities.length ? { entities } : {}),
      ...(replied ? { reply_to_message: replied } : {}),
    };
    this.messages.set(`${chat.id}:${message_id}`, message);
    this.updateMessages.set(`${token}:${update_id}`, message_id);
    bot.updates.push({ update_id, message });
    bot.waiters.splice(0).forEach((w) => w());
    void this.pump(token);
    return { updateId: update_id, messageId: message_id };
  }

  /**
   * A user presses an inline keyboard button under one of the bot's messages: a callback_query
   * update as Telegram sends it (a 19-digit string id, the message it is under, the button's data).
   */
  userPresses(token: string, message: SentMessage, data: string, from: TelegramUser): string {
    const bot = this.bots.get(token)!;
    const id = `${BigInt(4_000_000_000_000_000_000n) + BigInt(this.nextCallbackId++)}`;
    this.callbackQueries.add(id);
    bot.updates.push({
      update_id: bot.nextUpdateId++,
      callback_query: {
        id,
        from: { is_bot: false, ...from },
        message: {
          message_id: message.message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: message.chat_id, type: message.chat_id < 0 ? 'supergroup' : 'private' },
          from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
          text: message.text,
          ...(message.reply_markup ? { reply_markup: message.reply_markup } : {}),
        },
        chat_instance: `-${(Number(from.id) * 7919) % 9_000_000_000_000_000}`,
        data,
      },
    });
    bot.waiters.splice(0).forEach((w) => w());
    return id;
  }

  /** Telegram's entities for a text: a leading /command (grammY's command() needs it), @mentions. */
  private entitiesOf(text: string) {
    const entities: Array<{ type: string; offset: number; length: number }> = [];
    const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
    if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
    for (const m of text.matchAll(/(^|[^\w/])(@[A-Za-z0-9_]{5,32})/g)) {
      const offset = m.index! + m[1]!.length;
      if (command && offset < command[0].length) continue;
      entities.push({ type: 'mention', offset, length: m[2]!.length });
    }
    return entities;
  }

  /** The bot's messages (sendMessage) in a chat, in order. */
  sentTo(chatId: number) {
    return this.sent.filter((m) => m.chat_id === chatId);
  }

  /** A message as it is now (after edits), the bot's or a user's. */
  message(chatId: number, messageId: number) {
    return this.messages.get(`${chatId}:${messageId}`);
  }

  /**
   * Puts a file on the fake for this bot. `announce` lies about its size; `truncateTo` breaks the
   * download; `filePath` is what getFile answers instead of Telegram's own `photos/file_N.jpg`
   * (a hostile or broken API root's `..` segments), served as given.
   */
  addFile(
    token: string,
    kind: FileKind,
    bytes: Buffer,
    opts: { announce?: number; truncateTo?: number; ext?: string; filePath?: string } = {},
  ): StoredFile {
    const seq = this.fileSeq++;
    const file: StoredFile = {
      token,
      file_id: `${FILE_ID_TAG[kind]}${randomBytes(45).toString('base64url')}`,
      file_unique_id: `AQAD${randomBytes(9).toString('base64url')}`,
      file_path:
        opts.filePath ??
        `${FILE_DIR[kind]}/file_${seq}.${opts.ext ?? { photo: 'jpg', voice: 'oga', audio: 'mp3', document: 'bin' }[kind]}`,
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
    opts: { width?: number; height?: number; announce?: number; truncateTo?: number; filePath?: string } = {},
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

  /** Reads the request and holds it unanswered until the client gives up (or the fake stops). */
  private async neverAnswer(req: IncomingMessage, res: ServerResponse) {
    req.resume();
    await new Promise<void>((r) => res.once('close', () => r()));
  }

  /** A photo, document or voice note the bot uploaded, with its caption shown as Telegram would. */
  private sendMedia(
    res: ServerResponse,
    token: string,
    bot: BotState,
    method: MediaMethod,
    params: any,
    upload: ParsedRequest | undefined,
  ) {
    const chat_id = Number(params.chat_id);
    const file = upload?.files.get(MEDIA_FIELD[method]);
    let caption: string | undefined;
    let captionHtml: string | undefined;
    if (typeof params.caption === 'string') {
      const shown = this.shownText({ text: params.caption, parse_mode: params.parse_mode });
      if (!shown.ok) {
        this.refused.push({ token, method, chat_id, description: shown.description });
        return sendJson(res, 400, { ok: false, error_code: 400, description: shown.description });
      }
      caption = shown.text;
      if (shown.html !== undefined) captionHtml = shown.html;
    }
    const why = refusalOf(method, file, caption);
    if (why || !file) {
      this.refused.push({ token, method, chat_id, description: why ?? '' });
      return sendJson(res, 400, { ok: false, error_code: 400, description: why });
    }
    const message_id = this.messageId++;
    const sent: SentMedia = {
      token,
      method,
      chat_id,
      message_id,
      fileName: file.name,
      mimeType: file.type,
      bytes: file.bytes,
      ...(caption !== undefined ? { caption } : {}),
      ...(captionHtml !== undefined ? { captionHtml } : {}),
      ...(params.parse_mode ? { parse_mode: String(params.parse_mode) } : {}),
      ...(params.reply_parameters ? { reply_parameters: params.reply_parameters } : {}),
      at: Date.now(),
    };
    this.media.push(sent);
    const kind = MEDIA_FIELD[method] === 'voice' ? 'voice' : MEDIA_FIELD[method];
    const unique = randomBytes(6).toString('base64url');
    const fileId = `${FILE_ID_TAG[kind]}${unique}${this.fileSeq++}`;
    const result = {
      message_id,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat_id, type: chat_id < 0 ? 'supergroup' : 'private' },
      from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
      ...mediaObject(method, fileId, unique, sent),
      ...(caption !== undefined ? { caption } : {}),
    };
    this.messages.set(`${chat_id}:${message_id}`, result);
    this.sentWaiters.splice(0).forEach((w) => w());
    return sendJson(res, 200, { ok: true, result });
  }

  /** Waits for a photo, document or voice note matching `predicate` (woken by each upload). */
  waitForMedia(predicate: (m: SentMedia) => boolean, timeoutMs = 10_000): Promise<SentMedia> {
    return this.waitIn(this.media, predicate, timeoutMs, 'upload', (m) => [m.method, m.fileName]);
  }

  waitForSent(predicate: (m: SentMessage) => boolean, timeoutMs = 10_000): Promise<SentMessage> {
    return this.waitIn(this.sent, predicate, timeoutMs, 'sendMessage', (m) => m.text.slice(0, 60));
  }

  /**
   * The first of `items` matching `predicate`, looked for again at each send or upload; past
   * `timeoutMs`, an error listing each item as `shown` says what came instead.
   */
  private async waitIn<T>(
    items: readonly T[],
    predicate: (m: T) => boolean,
    timeoutMs: number,
    what: 'upload' | 'sendMessage',
    shown: (m: T) => unknown,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = items.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching ${what} within ${timeoutMs} ms; ${what === 'upload' ? 'uploaded' : 'sent'}: ${JSON.stringify(items.map(shown))}`,
        );
      await new Promise<void>((r) => {
        this.sentWaiters.push(r);
        setTimeout(r, 50);
      });
    }
  }

  /** Makes a user an administrator of a group (for getChatMember). */
  setAdmin(chatId: number, userId: number) {
    let set = this.admins.get(chatId);
    if (!set) this.admins.set(chatId, (set = new Set()));
    set.add(userId);
  }

  /** The text a message shows, or Telegram's 400 for it. */
  private shownText(
    params: any,
    method = 'sendMessage',
  ): { ok: true; text: string; html?: string } | { ok: false; description: string } {
    const raw = String(params.text ?? '');
    let text = raw;
    let html: string | undefined;
    if (params.parse_mode === 'HTML') {
      if (this.refuseHtml > 0 && method !== 'sendMessageDraft') {
        this.refuseHtml--;
        return {
          ok: false,
          description: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
        };
      }
      const parsed = parseTelegramHtml(raw);
      if (!parsed.ok) return parsed;
      text = parsed.text;
      html = raw;
    } else if (params.parse_mode) {
      return { ok: false, description: `Bad Request: unsupported parse_mode "${params.parse_mode}"` };
    }
    if (!text.trim()) return { ok: false, description: 'Bad Request: message text is empty' };
    if (text.length > 4096) return { ok: false, description: 'Bad Request: message is too long' };
    return { ok: true, text, ...(html !== undefined ? { html } : {}) };
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    if (this.silent) return this.neverAnswer(req, res);
    const dl = /^\/file\/bot([^/]+)\/(.+)$/.exec(req.url?.split('?')[0] ?? '');
    if (dl && req.method === 'GET') return this.download(dl[1]!, decodeURIComponent(dl[2]!), res);
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url?.split('?')[0] ?? '');
    if (!m) return sendJson(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const [, token, method] = m as unknown as [string, string, string];
    // grammY uploads files as multipart/form-data; every other call is JSON.
    const multipart = String(req.headers['content-type'] ?? '').startsWith('multipart/form-data');
    const upload: ParsedRequest | undefined = multipart ? await readMultipart(req) : undefined;
    const params: any = upload ? upload.params : await readJson(req);
    const bot = this.bots.get(token);
    if (!bot) return sendJson(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (this.broken.has(method)) {
      this.brokenAnswers.set(method, (this.brokenAnswers.get(method) ?? 0) + 1);
      return sendJson(res, 502, { ok: false, error_code: 502, description: 'Bad Gateway' });
    }
    this.onCall?.(method, token, params);
    const late = this.slow.get(method);
    if (late) await new Promise((r) => setTimeout(r, late).unref());
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
        this.getMes.set(token, (this.getMes.get(token) ?? 0) + 1);
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
      case 'deleteWebhook': {
        this.webhookDeletes.set(token, (this.webhookDeletes.get(token) ?? 0) + 1);
        const had = bot.webhook !== undefined;
        bot.webhook = undefined;
        if (params.drop_pending_updates === true || params.drop_pending_updates === 'true') bot.updates = [];
        return sendJson(res, 200, {
          ok: true,
          result: true,
          description: had ? 'Webhook was deleted' : 'Webhook is already deleted',
        });
      }
      case 'setWebhook': {
        const url = typeof params.url === 'string' ? params.url : '';
        if (!url) {
          // An empty URL removes the webhook, as deleteWebhook does.
          bot.webhook = undefined;
          return sendJson(res, 200, { ok: true, result: true, description: 'Webhook was deleted' });
        }
        let parsed: URL | undefined;
        try {
          parsed = new URL(url);
        } catch {}
        if (!parsed || (parsed.protocol !== 'https:' && !(this.localBotApi && parsed.protocol === 'http:')))
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
          });
        const secret = params.secret_token;
        if (secret !== undefined && (typeof secret !== 'string' || !/^[A-Za-z0-9_-]{1,256}$/.test(secret)))
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: secret token contains unallowed characters',
          });
        const allowed =
          typeof params.allowed_updates === 'string' ? JSON.parse(params.allowed_updates) : params.allowed_updates;
        if (params.drop_pending_updates === true || params.drop_pending_updates === 'true') bot.updates = [];
        const same = bot.webhook?.url === url;
        bot.webhook = { url, secretToken: secret, allowedUpdates: Array.isArray(allowed) ? allowed : undefined };
        // A long poll in flight ends: getUpdates and a webhook do not go together.
        bot.preempt?.();
        void this.pump(token);
        return sendJson(res, 200, {
          ok: true,
          result: true,
          description: same ? 'Webhook is already set' : 'Webhook was set',
        });
      }
      case 'getWebhookInfo':
        return sendJson(res, 200, {
          ok: true,
          result: {
            url: bot.webhook?.url ?? '',
            has_custom_certificate: false,
            pending_update_count: bot.updates.length,
            ...(bot.webhook ? { max_connections: 40 } : {}),
            ...(bot.webhook?.allowedUpdates ? { allowed_updates: bot.webhook.allowedUpdates } : {}),
            ...(bot.lastWebhookError
              ? { last_error_date: bot.lastWebhookError.date, last_error_message: bot.lastWebhookError.message }
              : {}),
          },
        });
      case 'getUpdates': {
        bot.getUpdatesCalls++;
        if (bot.webhook) return sendJson(res, 409, WEBHOOK_CONFLICT);
        // Two programs polling one token: the newer request ends the older one with 409.
        bot.preempt?.();
        const offset = Number(params.offset ?? 0);
        // allowed_updates is remembered per bot until a call names another list, and updates of
        // other kinds are never delivered (the real API drops them).
        if (Array.isArray(params.allowed_updates)) bot.allowedUpdates = params.allowed_updates.map(String);
        // Confirming: updates below the offset are gone for good, as on the real API.
        if (offset) bot.updates = bot.updates.filter((u) => u.update_id >= offset);
        // Types the bot did not ask for are not delivered, then or later.
        const allowed = bot.allowedUpdates;
        const dropUnasked = () => {
          if (!allowed?.length) return;
          this.undelivered.push(...bot.updates.filter((u) => !allowed.includes(kindOf(u) ?? '')));
          bot.updates = bot.updates.filter((u) => allowed.includes(kindOf(u) ?? ''));
        };
        dropUnasked();
        const timeout = Math.min(Number(params.timeout ?? 0) * 1000, 50_000, this.longPollCapMs);
        const deadline = Date.now() + timeout;
        bot.activePolls++;
        // A client that hangs up ends its long poll at once, as on the real API.
        const wake = () => bot.waiters.splice(0).forEach((w) => w());
        res.on('close', wake);
        let preempted = false;
        const preempt = () => {
          preempted = true;
          wake();
        };
        bot.preempt = preempt;
        try {
          while (
            bot.updates.length === 0 &&
            Date.now() < deadline &&
            !res.destroyed &&
            !preempted &&
            !this.otherPollers.has(token) &&
            this.bots.get(token) === bot
          ) {
            await new Promise<void>((r) => {
              bot.waiters.push(r);
              setTimeout(r, Math.max(0, deadline - Date.now())).unref();
            });
            dropUnasked();
          }
        } finally {
          bot.activePolls--;
          if (bot.preempt === preempt) bot.preempt = undefined;
        }
        if (res.destroyed) return;
        // Gone silent while the poll was held: its answer is lost on the way.
        if (this.silent) return this.neverAnswer(req, res);
        if (bot.webhook) return sendJson(res, 409, WEBHOOK_CONFLICT);
        if (preempted || this.otherPollers.has(token)) {
          bot.conflicts++;
          return sendJson(res, 409, {
            ok: false,
            error_code: 409,
            description:
              'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
          });
        }
        if (bot.updates.length === 0 && this.longPollLateMs > 0) {
          await new Promise((r) => setTimeout(r, this.longPollLateMs).unref());
          if (res.destroyed) return;
        }
        bot.pollsAnswered++;
        return sendJson(res, 200, { ok: true, result: bot.updates.slice(0, Number(params.limit ?? 100)) });
      }
      case 'sendMessage': {
        const shown = this.shownText(params);
        const chat_id = Number(params.chat_id);
        if (params.message_thread_id !== undefined && !this.topics.has(`${chat_id}:${params.message_thread_id}`))
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message thread not found',
          });
        if (!shown.ok) {
          this.refused.push({ token, method, chat_id, description: shown.description });
          return sendJson(res, 400, { ok: false, error_code: 400, description: shown.description });
        }
        const text = shown.text;
        const message_id = this.messageId++;
        const msg: SentMessage = {
          ...params,
          token,
          chat_id,
          text,
          message_id,
          ...(shown.html !== undefined ? { html: shown.html } : {}),
          ...(params.message_thread_id !== undefined ? { message_thread_id: Number(params.message_thread_id) } : {}),
          at: Date.now(),
        };
        this.sent.push(msg);
        const reply = params.reply_parameters as { message_id?: number } | undefined;
        const replied = reply?.message_id ? this.messages.get(`${chat_id}:${reply.message_id}`) : undefined;
        const result = {
          message_id,
          date: Math.floor(Date.now() / 1000),
          chat: { id: chat_id, type: chat_id < 0 ? 'supergroup' : 'private' },
          from: { id: bot.id, is_bot: true, first_name: bot.username, username: bot.username },
          text,
          ...(params.message_thread_id !== undefined
            ? { message_thread_id: params.message_thread_id, is_topic_message: true }
            : {}),
          ...(replied ? { reply_to_message: replied } : {}),
        };
        this.messages.set(`${chat_id}:${message_id}`, result);
        this.sentWaiters.splice(0).forEach((w) => w());
        return sendJson(res, 200, { ok: true, result });
      }
      case 'sendMessageDraft': {
        const chat_id = Number(params.chat_id);
        // Drafts go to private chats only (a group's chat id is negative).
        if (this.refuseDrafts || chat_id < 0)
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: TEXTDRAFT_PEER_INVALID' });
        if (!Number(params.draft_id))
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid draft_id' });
        const shown = this.shownText(params, method);
        if (!shown.ok) {
          this.refused.push({ token, method, chat_id, description: shown.description });
          return sendJson(res, 400, { ok: false, error_code: 400, description: shown.description });
        }
        this.drafts.push({
          token,
          chat_id,
          draft_id: Number(params.draft_id),
          text: shown.text,
          ...(shown.html !== undefined ? { html: shown.html } : {}),
          at: Date.now(),
        });
        this.sentWaiters.splice(0).forEach((w) => w());
        return sendJson(res, 200, { ok: true, result: true });
      }
      case 'editMessageText': {
        const chat_id = Number(params.chat_id);
        const message_id = Number(params.message_id);
        const existing = this.messages.get(`${chat_id}:${message_id}`);
        if (!existing || existing.from?.id !== bot.id)
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message to edit not found',
          });
        const shown = this.shownText(params, method);
        if (!shown.ok) {
          this.refused.push({ token, method, chat_id, description: shown.description });
          return sendJson(res, 400, { ok: false, error_code: 400, description: shown.description });
        }
        if (shown.text === existing.text && (shown.html ?? null) === (existing.html ?? null))
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description:
              'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
          });
        existing.text = shown.text;
        existing.html = shown.html;
        existing.edit_date = Math.floor(Date.now() / 1000);
        const sent = this.sent.find((m) => m.chat_id === chat_id && m.message_id === message_id);
        if (sent) {
          sent.text = shown.text;
          if (shown.html !== undefined) sent.html = shown.html;
          else delete sent.html;
          if (params.parse_mode) sent.parse_mode = params.parse_mode;
          else delete sent.parse_mode;
        }
        this.edits.push({
          token,
          chat_id,
          message_id,
          text: shown.text,
          ...(shown.html !== undefined ? { html: shown.html } : {}),
          at: Date.now(),
        });
        this.sentWaiters.splice(0).forEach((w) => w());
        return sendJson(res, 200, { ok: true, result: { ...existing, html: undefined } });
      }
      case 'setMyCommands': {
        bot.setMyCommandsCalls++;
        const commands = params.commands as Array<{ command: string; description: string }> | undefined;
        if (!Array.isArray(commands) || commands.some((c) => !/^[a-z0-9_]{1,32}$/.test(c.command) || !c.description))
          return sendJson(res, 400, { ok: false, error_code: 400, description: 'Bad Request: BOT_COMMAND_INVALID' });
        const language = String(params.language_code ?? '');
        if (JSON.stringify(bot.commands.get(language)) === JSON.stringify(commands)) bot.setMyCommandsRepeats++;
        bot.commands.set(language, commands);
        return sendJson(res, 200, { ok: true, result: true });
      }
      case 'getChatMember': {
        const chat_id = Number(params.chat_id);
        const user_id = Number(params.user_id);
        const status = this.admins.get(chat_id)?.has(user_id) ? 'administrator' : 'member';
        return sendJson(res, 200, {
          ok: true,
          result: { status, user: { id: user_id, is_bot: false, first_name: 'Member' } },
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
      case 'editMessageReplyMarkup': {
        const chat_id = Number(params.chat_id);
        const message_id = Number(params.message_id);
        const sent = this.sent.find((m) => m.token === token && m.chat_id === chat_id && m.message_id === message_id);
        if (!sent)
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: message to edit not found',
          });
        if (params.reply_markup === undefined) delete sent.reply_markup;
        else sent.reply_markup = params.reply_markup;
        return sendJson(res, 200, { ok: true, result: { message_id, chat: { id: chat_id }, text: sent.text } });
      }
      case 'answerCallbackQuery': {
        const id = String(params.callback_query_id ?? '');
        if (!this.callbackQueries.has(id))
          return sendJson(res, 400, {
            ok: false,
            error_code: 400,
            description: 'Bad Request: query is too old and response timeout expired or query ID is invalid',
          });
        this.callbackQueries.delete(id);
        this.callbackAnswers.push({
          token,
          callback_query_id: id,
          ...(params.text !== undefined ? { text: String(params.text) } : {}),
        });
        return sendJson(res, 200, { ok: true, result: true });
      }
      case 'sendPhoto':
      case 'sendDocument':
      case 'sendVoice':
        return this.sendMedia(res, token, bot, method, params, upload);
      case 'sendChatAction':
        this.actions.push({ token, chat_id: Number(params.chat_id), action: String(params.action) });
        return sendJson(res, 200, { ok: true, result: true });
      default:
        return sendJson(res, 404, { ok: false, error_code: 404, description: `Not Found: method ${method} not found` });
    }
  }
}

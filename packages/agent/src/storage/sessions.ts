// Conversation history and channel state in one SQLite file under the agent's data dir. Every
// row is keyed by the agent's name, so agents sharing a host never see each other's sessions.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { agentPurge, openPrivateDatabase, upgradeTo } from './sqlite-file.js';
import { searchScope } from './message-search.js';
import { telegramSession } from '../core/inbound.js';

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Caps on what an agent keeps (docs/decisions/0016-limits.md); 0 turns a cap off. */
export interface SessionLimits {
  /** Conversations (API sessions and Telegram chats) one agent keeps. */
  maxSessions: number;
  /** UTF-8 bytes of history one session keeps; older turns are dropped beyond it. */
  maxSessionBytes: number;
  /** A session untouched this long may be dropped to make room for a new one. */
  idleMs: number;
}

export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxSessions: 1000,
  maxSessionBytes: 256 * 1024,
  idleMs: 30 * 86_400_000,
};

// The session keys are the inbound contract's (channels name sessions without importing storage/).
export { apiSession, telegramSession } from '../core/inbound.js';

export class SessionStore {
  /** Shared with the repos of the same file (memory, message search, schedules); only repos write SQL. */
  readonly db: Database.Database;
  private readonly stmts;
  private readonly purgeRows: (agent: string) => void;

  constructor(
    /** Other repos of the agent keep their files beside this one (storage/access.ts). */
    readonly dataDir: string,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {
    // Conversations are private whatever the umask: the directory 0700, the database 0600 before
    // SQLite opens it (its -wal and -shm files take the database file's mode).
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    this.db = openPrivateDatabase(join(dataDir, 'agent-sessions.sqlite'));
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS messages (
        agent TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
        role TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL,
        PRIMARY KEY (agent, session, seq));
      CREATE TABLE IF NOT EXISTS telegram_offsets (agent TEXT PRIMARY KEY, next_offset INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS telegram_chats (agent TEXT NOT NULL, chat_id INTEGER NOT NULL, epoch INTEGER NOT NULL, PRIMARY KEY (agent, chat_id));
      CREATE TABLE IF NOT EXISTS telegram_menus (agent TEXT PRIMARY KEY, menu TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS telegram_topics (
        agent TEXT NOT NULL, chat_id INTEGER NOT NULL, topic INTEGER NOT NULL, epoch INTEGER NOT NULL,
        PRIMARY KEY (agent, chat_id, topic));
    `);
    // Version 1 namespaced API sessions; rows written before keep their conversations.
    upgradeTo(this.db, 1, () => {
      this.db.exec(`UPDATE messages SET session = 'api:' || session WHERE session NOT GLOB 'telegram:*'`);
    });
    // Version 2 (docs/decisions/0024-memory-search-reminders.md): per-user memory with its archive,
    // a full-text index of what each end user said to each agent, and scheduled messages.
    upgradeTo(this.db, 2, () => {
      this.db.exec(`
        CREATE TABLE memory (
          id INTEGER PRIMARY KEY AUTOINCREMENT, agent TEXT NOT NULL, user TEXT NOT NULL,
          fact TEXT NOT NULL, at TEXT NOT NULL, archived_at TEXT);
        CREATE INDEX memory_owner ON memory (agent, user, archived_at);
        CREATE VIRTUAL TABLE message_search USING fts5 (
          content, agent UNINDEXED, user UNINDEXED, session UNINDEXED, role UNINDEXED, at UNINDEXED,
          tokenize = 'unicode61 remove_diacritics 2');
        CREATE TABLE schedules (
          id TEXT PRIMARY KEY, agent TEXT NOT NULL, user TEXT NOT NULL, chat TEXT NOT NULL,
          text TEXT NOT NULL, task INTEGER NOT NULL, at TEXT, cron TEXT, timezone TEXT,
          next_at INTEGER NOT NULL, status TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL);
        CREATE INDEX schedules_due ON schedules (status, next_at);
        CREATE INDEX schedules_owner ON schedules (agent, user, status);
        CREATE TABLE summaries (
          agent TEXT NOT NULL, session TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL,
          PRIMARY KEY (agent, session));
      `);
    });
    // Version 3 (0024, "Moving an assistant"): which exports of a moved assistant this store took in,
    // so a retried move is not imported twice.
    upgradeTo(this.db, 3, () => {
      this.db.exec(
        'CREATE TABLE user_data_imports (agent TEXT NOT NULL, id TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (agent, id))',
      );
    });
    // Version 4 (issue 64): the search index holds each row's (agent, user) as an indexed token,
    // so a search reads one user's rows, not every user's that share a word. Existing rows are
    // copied once, rowids kept (a move's export orders by them).
    upgradeTo(this.db, 4, () => {
      this.db.function('berth_search_scope', { deterministic: true }, (agent, user) =>
        searchScope(String(agent), String(user)),
      );
      this.db.exec(`
        CREATE VIRTUAL TABLE message_search_v4 USING fts5 (
          content, scope, agent UNINDEXED, user UNINDEXED, session UNINDEXED, role UNINDEXED, at UNINDEXED,
          tokenize = 'unicode61 remove_diacritics 2');
        INSERT INTO message_search_v4 (rowid, content, scope, agent, user, session, role, at)
          SELECT rowid, content, berth_search_scope(agent, user), agent, user, session, role, at FROM message_search;
        DROP TABLE message_search;
        ALTER TABLE message_search_v4 RENAME TO message_search;
      `);
    });
    // Version 5 (DESIGN §9.4): each end user's own time zone.
    upgradeTo(this.db, 5, () => {
      this.db.exec(
        'CREATE TABLE user_prefs (agent TEXT NOT NULL, user TEXT NOT NULL, timezone TEXT, PRIMARY KEY (agent, user))',
      );
    });
    // Version 6 (DESIGN §9.1): small values a channel keeps between restarts (WhatsApp: when each
    // user last wrote, for the 24-hour window).
    upgradeTo(this.db, 6, () => {
      this.db.exec(
        'CREATE TABLE channel_values (agent TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (agent, key))',
      );
    });
    // The tables that hold an agent's rows, in the order purge() empties them.
    this.purgeRows = agentPurge(this.db, [
      'memory',
      'message_search',
      'schedules',
      'summaries',
      'messages',
      'telegram_offsets',
      'telegram_chats',
      'telegram_topics',
      'telegram_menus',
      'user_data_imports',
      'user_prefs',
      'channel_values',
    ]);
    this.stmts = {
      getValue: this.db.prepare('SELECT value FROM channel_values WHERE agent = ? AND key = ?'),
      setValue: this.db.prepare(
        'INSERT INTO channel_values (agent, key, value) VALUES (?, ?, ?) ON CONFLICT (agent, key) DO UPDATE SET value = excluded.value',
      ),
      listValues: this.db.prepare(
        'SELECT key, value FROM channel_values WHERE agent = ? AND key >= ? AND key < ? ORDER BY key',
      ),
      deleteValue: this.db.prepare('DELETE FROM channel_values WHERE agent = ? AND key = ?'),
      load: this.db.prepare('SELECT role, content FROM messages WHERE agent = ? AND session = ? ORDER BY seq'),
      maxSeq: this.db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM messages WHERE agent = ? AND session = ?'),
      insert: this.db.prepare(
        'INSERT INTO messages (agent, session, seq, role, content, at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      sizes: this.db.prepare(
        'SELECT seq, LENGTH(content) AS n, LENGTH(CAST(content AS BLOB)) AS b FROM messages WHERE agent = ? AND session = ? ORDER BY seq DESC',
      ),
      hasSession: this.db.prepare('SELECT 1 FROM messages WHERE agent = ? AND session = ? LIMIT 1'),
      forgetSession: this.db.prepare('DELETE FROM messages WHERE agent = ? AND session = ?'),
      forgetSummary: this.db.prepare('DELETE FROM summaries WHERE agent = ? AND session = ?'),
      forgetIndexed: this.db.prepare('DELETE FROM message_search WHERE agent = ? AND session = ?'),
      countSessions: this.db.prepare('SELECT COUNT(DISTINCT session) AS n FROM messages WHERE agent = ?'),
      expireIdle: this.db.prepare(
        'DELETE FROM messages WHERE agent = ? AND session IN (SELECT session FROM messages WHERE agent = ? GROUP BY session HAVING MAX(at) < ?)',
      ),
      trim: this.db.prepare('DELETE FROM messages WHERE agent = ? AND session = ? AND seq < ?'),
      getOffset: this.db.prepare('SELECT next_offset FROM telegram_offsets WHERE agent = ?'),
      setOffset: this.db.prepare(
        'INSERT INTO telegram_offsets (agent, next_offset) VALUES (?, ?) ON CONFLICT (agent) DO UPDATE SET next_offset = excluded.next_offset',
      ),
      getEpoch: this.db.prepare('SELECT epoch FROM telegram_chats WHERE agent = ? AND chat_id = ?'),
      bumpEpoch: this.db.prepare(
        'INSERT INTO telegram_chats (agent, chat_id, epoch) VALUES (?, ?, 1) ON CONFLICT (agent, chat_id) DO UPDATE SET epoch = epoch + 1',
      ),
      getTopicEpoch: this.db.prepare('SELECT epoch FROM telegram_topics WHERE agent = ? AND chat_id = ? AND topic = ?'),
      setTopicEpoch: this.db.prepare(
        'INSERT INTO telegram_topics (agent, chat_id, topic, epoch) VALUES (?, ?, ?, ?) ON CONFLICT (agent, chat_id, topic) DO UPDATE SET epoch = excluded.epoch',
      ),
      // Topics with a conversation under the chat's epoch `?` (sessions "<prefix><topic>") and no
      // epoch of their own keep that one.
      pinTopics: this.db.prepare(`
        INSERT OR IGNORE INTO telegram_topics (agent, chat_id, topic, epoch)
          SELECT DISTINCT agent, ?, CAST(substr(session, length(?) + 1) AS INTEGER), ? FROM (
            SELECT agent, session FROM messages WHERE agent = ? AND session GLOB ?
            UNION SELECT agent, session FROM summaries WHERE agent = ? AND session GLOB ?)`),
      getMenu: this.db.prepare('SELECT menu FROM telegram_menus WHERE agent = ?'),
      setMenu: this.db.prepare(
        'INSERT INTO telegram_menus (agent, menu) VALUES (?, ?) ON CONFLICT (agent) DO UPDATE SET menu = excluded.menu',
      ),
      index: this.db.prepare(
        'INSERT INTO message_search (content, scope, agent, user, session, role, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      getSummary: this.db.prepare('SELECT content FROM summaries WHERE agent = ? AND session = ?'),
      setSummary: this.db.prepare(
        'INSERT INTO summaries (agent, session, content, at) VALUES (?, ?, ?, ?) ON CONFLICT (agent, session) DO UPDATE SET content = excluded.content, at = excluded.at',
      ),
      firstSeqs: this.db.prepare(
        'SELECT seq, role, content FROM messages WHERE agent = ? AND session = ? ORDER BY seq',
      ),
    };
  }

  load(agent: string, session: string): StoredMessage[] {
    return this.stmts.load.all(agent, session) as StoredMessage[];
  }

  /**
   * Appends a turn, then drops the oldest messages beyond `budgetChars` (the newest turn always
   * stays). With `user`, the turn is also indexed for that end user's search_past_conversations.
   */
  append(agent: string, session: string, turn: StoredMessage[], budgetChars: number, user?: string): void {
    const at = new Date().toISOString();
    this.db.transaction(() => {
      let seq = (this.stmts.maxSeq.get(agent, session) as { s: number }).s;
      for (const m of turn) {
        this.stmts.insert.run(agent, session, ++seq, m.role, m.content, at);
        if (user) this.stmts.index.run(m.content, searchScope(agent, user), agent, user, session, m.role, at);
      }
      let total = 0;
      let bytes = 0;
      const maxBytes = this.limits.maxSessionBytes || Number.POSITIVE_INFINITY;
      let keepFrom = 0;
      const rows = this.stmts.sizes.all(agent, session) as Array<{ seq: number; n: number; b: number }>;
      for (const [i, r] of rows.entries()) {
        total += r.n;
        bytes += r.b;
        if ((total > budgetChars || bytes > maxBytes) && i >= turn.length) break;
        keepFrom = r.seq;
      }
      this.stmts.trim.run(agent, session, keepFrom);
    })();
  }

  /**
   * Whether `session` may be used: it exists, or the agent keeps fewer than maxSessions (after
   * dropping sessions idle for longer than idleMs). Turns in flight may pass the cap by their number.
   */
  admitSession(agent: string, session: string, now = Date.now()): boolean {
    const max = this.limits.maxSessions;
    if (!max || this.stmts.hasSession.get(agent, session)) return true;
    const count = () => (this.stmts.countSessions.get(agent) as { n: number }).n;
    if (count() < max) return true;
    this.stmts.expireIdle.run(agent, agent, new Date(now - this.limits.idleMs).toISOString());
    return count() < max;
  }

  telegramOffset(agent: string): number {
    return (this.stmts.getOffset.get(agent) as { next_offset: number } | undefined)?.next_offset ?? 0;
  }

  setTelegramOffset(agent: string, offset: number): void {
    this.stmts.setOffset.run(agent, offset);
  }

  /**
   * The conversation epoch of a chat, or of one of its forum topics (DESIGN §9.4: a topic is a
   * conversation of its own, and so is its /reset). A topic without an epoch of its own has the
   * chat's: before topics had their own, their sessions were keyed by the chat's epoch, and those
   * conversations stay theirs. A Discord channel id is a 64-bit snowflake: passed as a bigint, it
   * is kept exactly (SQLite INTEGER).
   */
  chatEpoch(agent: string, chatId: number | bigint, topic?: number): number {
    const chat = (this.stmts.getEpoch.get(agent, chatId) as { epoch: number } | undefined)?.epoch ?? 0;
    if (topic === undefined) return chat;
    return (this.stmts.getTopicEpoch.get(agent, chatId, topic) as { epoch: number } | undefined)?.epoch ?? chat;
  }

  /**
   * Starts a new conversation in a chat (its General topic, in a forum) or in one forum topic.
   * The chat's new epoch would also move every topic still on the chat's: those with a
   * conversation are first given the current one as their own, so they keep it.
   */
  newChatEpoch(agent: string, chatId: number | bigint, topic?: number): void {
    this.db.transaction(() => {
      const epoch = this.chatEpoch(agent, chatId, topic);
      if (topic !== undefined) return void this.stmts.setTopicEpoch.run(agent, chatId, topic, epoch + 1);
      // Forum topics are Telegram's; a Discord channel id (a bigint) has none to pin.
      if (typeof chatId === 'number') {
        const prefix = `${telegramSession(chatId, epoch)}:`;
        const glob = `${prefix}[0-9]*`;
        this.stmts.pinTopics.run(chatId, prefix, epoch, agent, glob, agent, glob);
      }
      this.stmts.bumpEpoch.run(agent, chatId);
    })();
  }

  /** A value a channel keeps for an agent (channel_values), or undefined. */
  channelValue(agent: string, key: string): string | undefined {
    return (this.stmts.getValue.get(agent, key) as { value: string } | undefined)?.value;
  }

  setChannelValue(agent: string, key: string, value: string): void {
    this.stmts.setValue.run(agent, key, value);
  }

  /** Every value whose key starts with `prefix`, in key order. */
  channelValues(agent: string, prefix: string): Array<{ key: string; value: string }> {
    // The keys from `prefix` up to (not including) the prefix with its last character's successor.
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return this.stmts.listValues.all(agent, prefix, end) as Array<{ key: string; value: string }>;
  }

  deleteChannelValue(agent: string, key: string): void {
    this.stmts.deleteValue.run(agent, key);
  }

  telegramMenu(agent: string): string | undefined {
    return (this.stmts.getMenu.get(agent) as { menu: string } | undefined)?.menu;
  }

  setTelegramMenu(agent: string, key: string): void {
    this.stmts.setMenu.run(agent, key);
  }

  /** Drops the oldest messages beyond `budgetChars`, keeping the newest two (a failed fold's fallback). */
  trimTo(agent: string, session: string, budgetChars: number): void {
    const rows = this.stmts.sizes.all(agent, session) as Array<{ seq: number; n: number }>;
    let total = 0;
    for (const [i, r] of rows.entries()) {
      total += r.n;
      if (total > budgetChars && i >= 2) {
        this.stmts.trim.run(agent, session, r.seq + 1);
        return;
      }
    }
  }

  /** The running summary of a session's older turns (rolling summary), if any. */
  summary(agent: string, session: string): string | undefined {
    return (this.stmts.getSummary.get(agent, session) as { content: string } | undefined)?.content;
  }

  /**
   * Replaces the oldest messages of a session (seq <= throughSeq) by `summary`, in one transaction,
   * so a crash never leaves turns both summarised and kept, or neither.
   */
  fold(agent: string, session: string, throughSeq: number, summary: string): void {
    this.db.transaction(() => {
      this.stmts.setSummary.run(agent, session, summary, new Date().toISOString());
      this.stmts.trim.run(agent, session, throughSeq + 1);
    })();
  }

  /** A session's messages with their sequence numbers, oldest first (for folding). */
  loadWithSeq(agent: string, session: string): Array<StoredMessage & { seq: number }> {
    return this.stmts.firstSeqs.all(agent, session) as Array<StoredMessage & { seq: number }>;
  }

  /**
   * Forgets one conversation (the playground's DELETE): its messages, its summary and its rows in
   * the past-conversations index. What the user asked the assistant to remember stays.
   */
  forgetSession(agent: string, session: string): boolean {
    return this.db.transaction(() => {
      this.stmts.forgetSummary.run(agent, session);
      this.stmts.forgetIndexed.run(agent, session);
      return this.stmts.forgetSession.run(agent, session).changes > 0;
    })();
  }

  /** Forgets everything of one agent (its deployment was deleted or moved away): conversations, memory, schedules. */
  purge(agent: string): void {
    this.db.transaction(() => this.purgeRows(agent))();
  }

  close() {
    this.db.close();
  }
}

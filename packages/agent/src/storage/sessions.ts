// Conversation history and channel state in one SQLite file under the agent's data dir. Every
// row is keyed by the agent's name, so agents sharing a host never see each other's sessions.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

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

/**
 * Sessions of the two channels live in separate namespaces: whatever an API client sends as
 * X-Assistant-Session-Id (even "telegram:4242:0") can never name a Telegram chat's history.
 */
export const apiSession = (id: string) => `api:${id}`;
export const telegramSession = (chatId: number, epoch: number) => `telegram:${chatId}:${epoch}`;

export class SessionStore {
  private readonly db: Database.Database;
  private readonly stmts;

  constructor(
    /** Other repos of the agent keep their files beside this one (storage/access.ts). */
    readonly dataDir: string,
    readonly limits: SessionLimits = DEFAULT_SESSION_LIMITS,
  ) {
    // Conversations are private whatever the umask: the directory 0700, the database 0600 before
    // SQLite opens it (its -wal and -shm files take the database file's mode).
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const file = join(dataDir, 'agent-sessions.sqlite');
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS messages (
        agent TEXT NOT NULL, session TEXT NOT NULL, seq INTEGER NOT NULL,
        role TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL,
        PRIMARY KEY (agent, session, seq));
      CREATE TABLE IF NOT EXISTS telegram_offsets (agent TEXT PRIMARY KEY, next_offset INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS telegram_chats (agent TEXT NOT NULL, chat_id INTEGER NOT NULL, epoch INTEGER NOT NULL, PRIMARY KEY (agent, chat_id));
    `);
    // Version 1 namespaced API sessions; rows written before keep their conversations.
    if ((this.db.pragma('user_version', { simple: true }) as number) < 1) {
      this.db.transaction(() => {
        this.db.exec(`UPDATE messages SET session = 'api:' || session WHERE session NOT GLOB 'telegram:*'`);
        this.db.pragma('user_version = 1');
      })();
    }
    this.stmts = {
      load: this.db.prepare('SELECT role, content FROM messages WHERE agent = ? AND session = ? ORDER BY seq'),
      maxSeq: this.db.prepare('SELECT COALESCE(MAX(seq), 0) AS s FROM messages WHERE agent = ? AND session = ?'),
      insert: this.db.prepare(
        'INSERT INTO messages (agent, session, seq, role, content, at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      sizes: this.db.prepare(
        'SELECT seq, LENGTH(content) AS n, LENGTH(CAST(content AS BLOB)) AS b FROM messages WHERE agent = ? AND session = ? ORDER BY seq DESC',
      ),
      hasSession: this.db.prepare('SELECT 1 FROM messages WHERE agent = ? AND session = ? LIMIT 1'),
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
      purgeMessages: this.db.prepare('DELETE FROM messages WHERE agent = ?'),
      purgeOffsets: this.db.prepare('DELETE FROM telegram_offsets WHERE agent = ?'),
      purgeChats: this.db.prepare('DELETE FROM telegram_chats WHERE agent = ?'),
    };
  }

  load(agent: string, session: string): StoredMessage[] {
    return this.stmts.load.all(agent, session) as StoredMessage[];
  }

  /** Appends a turn, then drops the oldest messages beyond `budgetChars` (the newest turn always stays). */
  append(agent: string, session: string, turn: StoredMessage[], budgetChars: number): void {
    const at = new Date().toISOString();
    this.db.transaction(() => {
      let seq = (this.stmts.maxSeq.get(agent, session) as { s: number }).s;
      for (const m of turn) this.stmts.insert.run(agent, session, ++seq, m.role, m.content, at);
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

  chatEpoch(agent: string, chatId: number): number {
    return (this.stmts.getEpoch.get(agent, chatId) as { epoch: number } | undefined)?.epoch ?? 0;
  }

  newChatEpoch(agent: string, chatId: number): void {
    this.stmts.bumpEpoch.run(agent, chatId);
  }

  /** Forgets everything of one agent (its deployment was deleted). */
  purge(agent: string): void {
    this.db.transaction(() => {
      this.stmts.purgeMessages.run(agent);
      this.stmts.purgeOffsets.run(agent);
      this.stmts.purgeChats.run(agent);
    })();
  }

  close() {
    this.db.close();
  }
}

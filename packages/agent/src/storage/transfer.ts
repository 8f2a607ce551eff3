// What moves with an assistant to another host or pod (docs/decisions/0024-memory-search-reminders.md,
// "Moving an assistant"): its end users' memory (with the archive), the past-conversations index,
// its schedules with their claim state (next_at, status, sent), and its conversations (messages,
// running summaries, chat and forum topic epochs). Not the Telegram offset: Telegram itself keeps what was confirmed.
// The old worker is stopped before the export is read, so no occurrence is claimed after it; the
// import is keyed by the export's digest, so a retried move never imports twice.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { searchScope } from './message-search.js';

type Rows = Array<Record<string, string | number | null>>;

export interface UserDataExport {
  /** sha256 of the tables below: the same rows give the same id, so a retried import is a no-op. */
  id: string;
  agent: string;
  tables: Record<TableName, Rows>;
}

// Columns copied, per table (the agent column is the target's name, set on import).
const TABLES = {
  memory: ['user', 'fact', 'at', 'archived_at'],
  message_search: ['content', 'user', 'session', 'role', 'at'],
  schedules: [
    'id',
    'user',
    'chat',
    'text',
    'task',
    'at',
    'cron',
    'timezone',
    'next_at',
    'status',
    'sent',
    'created_at',
  ],
  summaries: ['session', 'content', 'at'],
  messages: ['session', 'seq', 'role', 'content', 'at'],
  telegram_chats: ['chat_id', 'epoch'],
  telegram_topics: ['chat_id', 'topic', 'epoch'],
  user_prefs: ['user', 'timezone'],
} as const;
type TableName = keyof typeof TABLES;
const NAMES = Object.keys(TABLES) as TableName[];
// Rows in the order they were written (memory ids: oldest facts archive first after the move too).
const ORDER: Record<TableName, string> = {
  memory: 'id',
  message_search: 'rowid',
  schedules: 'id',
  summaries: 'session',
  messages: 'session, seq',
  telegram_chats: 'chat_id',
  telegram_topics: 'chat_id, topic',
  user_prefs: 'user',
};

export class TransferRepo {
  /** `db` is the session store's (storage/sessions.ts schema step 3 made `user_data_imports`). */
  constructor(private readonly db: Database.Database) {}

  export(agent: string): UserDataExport {
    const tables = {} as Record<TableName, Rows>;
    this.db.transaction(() => {
      for (const t of NAMES)
        tables[t] = this.db
          .prepare(`SELECT ${TABLES[t].join(', ')} FROM ${t} WHERE agent = ? ORDER BY ${ORDER[t]}`)
          .all(agent) as Rows;
    })();
    const id = createHash('sha256').update(JSON.stringify(tables)).digest('hex');
    return { id, agent, tables };
  }

  /**
   * Replaces `agent`'s rows with the export's, in one transaction. False when this export was
   * imported before (a retried move): then nothing changes, so a reminder the new worker has
   * already delivered is never brought back.
   */
  import(agent: string, data: UserDataExport): boolean {
    return this.db.transaction(() => {
      const seen = this.db.prepare('SELECT 1 FROM user_data_imports WHERE agent = ? AND id = ?').get(agent, data.id);
      if (seen) return false;
      const setScope = this.db.prepare('UPDATE message_search SET scope = ? WHERE rowid = ?');
      for (const t of NAMES) {
        const cols = TABLES[t];
        this.db.prepare(`DELETE FROM ${t} WHERE agent = ?`).run(agent);
        const insert = this.db.prepare(
          `INSERT INTO ${t} (agent, ${cols.join(', ')}) VALUES (?${', ?'.repeat(cols.length)})`,
        );
        for (const row of data.tables[t] ?? []) insert.run(agent, ...cols.map((c) => row[c] ?? null));
        // The search index's per-user token is derived, not carried: it names the target agent.
        if (t === 'message_search')
          for (const { rowid, user } of this.db
            .prepare('SELECT rowid, user FROM message_search WHERE agent = ?')
            .all(agent) as Array<{ rowid: number; user: string }>)
            setScope.run(searchScope(agent, user), rowid);
      }
      this.db
        .prepare('INSERT INTO user_data_imports (agent, id, at) VALUES (?, ?, ?)')
        .run(agent, data.id, new Date().toISOString());
      return true;
    })();
  }
}

/** The export's shape, checked before anything is written (a bad body is a 400 and changes nothing). */
export function checkExport(body: unknown): string | undefined {
  const b = body as Partial<UserDataExport> | undefined;
  if (!b || typeof b !== 'object') return 'the body must be an export';
  if (typeof b.id !== 'string' || !/^[0-9a-f]{64}$/.test(b.id)) return 'id must be a sha256 hex digest';
  if (!b.tables || typeof b.tables !== 'object') return 'tables is required';
  for (const t of NAMES) {
    const rows = (b.tables as Record<string, unknown>)[t];
    if (rows === undefined) continue;
    if (!Array.isArray(rows)) return `tables.${t} must be an array`;
    for (const r of rows) {
      if (!r || typeof r !== 'object') return `tables.${t} holds a row that is not an object`;
      for (const [k, v] of Object.entries(r))
        if (
          !(TABLES[t] as readonly string[]).includes(k) ||
          (v !== null && typeof v !== 'string' && typeof v !== 'number')
        )
          return `tables.${t} holds an unknown column or value (${k})`;
    }
  }
  const digest = createHash('sha256').update(JSON.stringify(b.tables)).digest('hex');
  if (digest !== b.id) return 'id does not match the tables (the export was changed on its way)';
  return undefined;
}

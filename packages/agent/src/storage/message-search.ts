// Full-text search (SQLite FTS5) over what one end user and one agent said to each other. The
// index is filled by SessionStore.append and outlives /reset and history trimming on purpose: it is
// the user's past conversations. Every query is bound to (agent, user); nothing else is reachable.
import type Database from 'better-sqlite3';

export interface PastMessage {
  role: 'user' | 'assistant';
  at: string;
  snippet: string;
}

/**
 * The user's words as an FTS5 query: each word quoted (so AND, NEAR, quotes or column filters in
 * the text are plain words, never syntax) and OR-ed, ranked by bm25.
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}_]+/gu)?.slice(0, 20) ?? [];
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w}"`).join(' OR ');
}

export class MessageSearch {
  private readonly q;

  constructor(db: Database.Database) {
    this.q = db.prepare(
      `SELECT role, at, snippet(message_search, 0, '«', '»', '…', 24) AS snippet
         FROM message_search
        WHERE message_search MATCH ? AND agent = ? AND user = ?
        ORDER BY bm25(message_search) LIMIT ?`,
    );
  }

  search(agent: string, user: string, text: string, limit = 8): PastMessage[] {
    const match = ftsQuery(text);
    if (!match) return [];
    return this.q.all(match, agent, user, limit) as PastMessage[];
  }
}

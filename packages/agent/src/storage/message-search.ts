// Full-text search (SQLite FTS5) over what one end user and one agent said to each other. The
// index is filled by SessionStore.append and outlives /reset and history trimming on purpose: it is
// the user's past conversations. Every query is bound to (agent, user); nothing else is reachable.
import { createHash } from 'node:crypto';
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

/**
 * The (agent, user) pair as one indexed token (issue 64). Matching it inside the full-text query
 * lets FTS5 skip to this user's rows; filtering `agent` and `user` (unindexed) after the match made
 * a search rank every user's rows that share a word: 40 ms at 200,000 other rows, on the event loop.
 * Hex keeps it one token for the unicode61 tokenizer; the exact columns are still compared.
 */
export function searchScope(agent: string, user: string): string {
  return `s${createHash('sha256').update(`${agent}\0${user}`).digest('hex').slice(0, 24)}`;
}

// The newest matches of one user that are ranked (bounded by that user's own rows, never others').
const CANDIDATES = 200;

export class MessageSearch {
  private readonly q;

  constructor(db: Database.Database) {
    // Not ORDER BY bm25: its inverse document frequencies count every row of the index holding a
    // query word, whoever wrote it (40 ms per search at 200,000 other users' rows). The newest
    // matches of this user are ranked here instead (issue 64).
    this.q = db.prepare(
      `SELECT role, at, snippet(message_search, 0, '«', '»', '…', 24) AS snippet
         FROM message_search
        WHERE message_search MATCH ? AND agent = ? AND user = ?
        ORDER BY rowid DESC LIMIT ${CANDIDATES}`,
    );
  }

  /** The best `limit` matches: the most distinct query words found first, then the newest. */
  search(agent: string, user: string, text: string, limit = 8): PastMessage[] {
    const match = ftsQuery(text);
    if (!match) return [];
    const rows = this.q.all(
      `scope : ${searchScope(agent, user)} AND content : (${match})`,
      agent,
      user,
    ) as PastMessage[];
    const hits = (row: PastMessage) => new Set(row.snippet.match(/«[^»]*»/g)?.map((m) => m.toLowerCase())).size;
    return rows
      .map((row, i) => ({ row, score: hits(row), i }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .slice(0, limit)
      .map((r) => r.row);
  }
}

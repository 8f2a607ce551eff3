// Who may talk to a bot (DESIGN §7.1 access): pending pairing codes and per-user daily reply
// counts, per assistant, in their own SQLite file beside the sessions (same directory, same modes).
// One store per data directory, shared by the assistants of a host.
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { agentPurge, openPrivateDatabase } from './sqlite-file.js';
import { channelUser } from '../core/inbound.js';

/** How long a pairing code can be approved. */
export const PAIRING_TTL_MS = 60 * 60 * 1000;
// No 0/O, 1/I/L: a code read out or typed by a person.
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export interface Pairing {
  code: string;
  telegramUserId: number;
  name: string | null;
  expiresAt: string;
}

export type DailyVerdict = 'ok' | 'first_over' | 'over';

/**
 * An end user as this store keys them (DESIGN §9.1: a user is `(channel, user id)`): a Telegram
 * user is the integer id every row has held since pairing and daily limits began, so no stored
 * count or code changes meaning; any other channel's user is its `<channel>:<id>` text key. SQLite
 * keeps the two apart by type: Telegram user 42 and WhatsApp user 42 never share a count.
 */
export type AccessUser = number | string;
export const accessUser = (channel: string, id: number | string): AccessUser =>
  channel === 'telegram' ? Number(id) : channelUser(channel, id);

export class AccessStore {
  private readonly db: Database.Database;
  private readonly stmts;
  private readonly purgeRows: (agent: string) => void;
  /** Told of each new pairing code, per assistant (the owner hears of it: DESIGN §9.3). */
  private readonly listeners = new Map<string, (p: Pairing) => void>();

  constructor(dataDir: string) {
    this.db = openPrivateDatabase(join(dataDir, 'agent-access.sqlite'));
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS pairings (
        agent TEXT NOT NULL, code TEXT NOT NULL, user_id INTEGER NOT NULL, name TEXT,
        expires_at INTEGER NOT NULL, PRIMARY KEY (agent, code));
      CREATE INDEX IF NOT EXISTS pairings_user ON pairings (agent, user_id);
      CREATE TABLE IF NOT EXISTS daily_replies (
        agent TEXT NOT NULL, user_id INTEGER NOT NULL, day TEXT NOT NULL, count INTEGER NOT NULL,
        PRIMARY KEY (agent, user_id, day));
    `);
    this.purgeRows = agentPurge(this.db, ['pairings', 'daily_replies']);
    this.stmts = {
      byUser: this.db.prepare('SELECT code FROM pairings WHERE agent = ? AND user_id = ? AND expires_at > ?'),
      insert: this.db.prepare(
        'INSERT INTO pairings (agent, code, user_id, name, expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ),
      expire: this.db.prepare('DELETE FROM pairings WHERE agent = ? AND expires_at <= ?'),
      // Telegram's codes only: the control plane approves a code into access.telegramUserIds.
      list: this.db.prepare(
        `SELECT code, user_id, name, expires_at FROM pairings
         WHERE agent = ? AND expires_at > ? AND typeof(user_id) = 'integer' ORDER BY expires_at`,
      ),
      get: this.db.prepare(
        "SELECT code, user_id, name, expires_at FROM pairings WHERE agent = ? AND code = ? AND typeof(user_id) = 'integer'",
      ),
      remove: this.db.prepare('DELETE FROM pairings WHERE agent = ? AND code = ?'),
      count: this.db.prepare(
        `INSERT INTO daily_replies (agent, user_id, day, count) VALUES (?, ?, ?, 1)
         ON CONFLICT (agent, user_id, day) DO UPDATE SET count = count + 1 RETURNING count`,
      ),
      oldDays: this.db.prepare('DELETE FROM daily_replies WHERE agent = ? AND day < ?'),
    };
  }

  /** The user's pending code, or a new one (one code per user at a time). */
  pairingFor(agent: string, userId: AccessUser, name: string | null, now: number): string {
    const existing = this.stmts.byUser.get(agent, userId, now) as { code: string } | undefined;
    if (existing) return existing.code;
    this.stmts.expire.run(agent, now);
    for (;;) {
      const code = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      if (this.stmts.insert.run(agent, code, userId, name, now + PAIRING_TTL_MS).changes === 1) {
        // The owner hears of Telegram's codes (the only ones the control plane approves so far).
        if (typeof userId === 'number') {
          const pairing = {
            code,
            telegramUserId: userId,
            name,
            expiresAt: new Date(now + PAIRING_TTL_MS).toISOString(),
          };
          try {
            this.listeners.get(agent)?.(pairing);
          } catch {
            // The stranger gets their code whatever becomes of the notice.
          }
        }
        return code;
      }
    }
  }

  /** `listener` hears of each new code of `agent` (not of a code handed out again); returns its removal. */
  onPairing(agent: string, listener: (p: Pairing) => void): () => void {
    this.listeners.set(agent, listener);
    return () => {
      if (this.listeners.get(agent) === listener) this.listeners.delete(agent);
    };
  }

  pending(agent: string, now: number): Pairing[] {
    return (this.stmts.list.all(agent, now) as Row[]).map(toPairing);
  }

  /** The code's pairing, 'expired' when its hour is over, undefined when there is none. */
  find(agent: string, code: string, now: number): Pairing | 'expired' | undefined {
    const row = this.stmts.get.get(agent, code.toUpperCase()) as Row | undefined;
    if (!row) return undefined;
    return row.expires_at > now ? toPairing(row) : 'expired';
  }

  remove(agent: string, code: string): boolean {
    return this.stmts.remove.run(agent, code.toUpperCase()).changes > 0;
  }

  /** Counts one message of the user today (UTC) against `limit`. */
  countReply(agent: string, userId: AccessUser, limit: number, now: number): DailyVerdict {
    const day = new Date(now).toISOString().slice(0, 10);
    const { count } = this.stmts.count.get(agent, userId, day) as { count: number };
    if (count === 1) this.stmts.oldDays.run(agent, day);
    return count <= limit ? 'ok' : count === limit + 1 ? 'first_over' : 'over';
  }

  purge(agent: string): void {
    this.purgeRows(agent);
  }
}

interface Row {
  code: string;
  user_id: number;
  name: string | null;
  expires_at: number;
}
const toPairing = (r: Row): Pairing => ({
  code: r.code,
  telegramUserId: Number(r.user_id),
  name: r.name,
  expiresAt: new Date(r.expires_at).toISOString(),
});

const stores = new Map<string, AccessStore>();
/** The access store of a data directory, opened with its first use. */
export function accessStoreFor(dataDir: string): AccessStore {
  let s = stores.get(dataDir);
  if (!s) {
    s = new AccessStore(dataDir);
    stores.set(dataDir, s);
  }
  return s;
}

// What an end user told the assistant about themselves that is not a memory fact: their time zone
// (/timezone, or the set_timezone tool when the model asked; DESIGN §9.4). Keyed by (agent, user),
// moved with the assistant and purged with it like memory.
import type Database from 'better-sqlite3';

export class UserPrefsRepo {
  private readonly q;

  constructor(db: Database.Database) {
    this.q = {
      get: db.prepare('SELECT timezone FROM user_prefs WHERE agent = ? AND user = ?'),
      set: db.prepare(
        'INSERT INTO user_prefs (agent, user, timezone) VALUES (?, ?, ?) ON CONFLICT (agent, user) DO UPDATE SET timezone = excluded.timezone',
      ),
    };
  }

  /** The user's own time zone, if they gave one. */
  timezone(agent: string, user: string): string | undefined {
    return (this.q.get.get(agent, user) as { timezone: string | null } | undefined)?.timezone ?? undefined;
  }

  setTimezone(agent: string, user: string, timezone: string): void {
    this.q.set.run(agent, user, timezone);
  }
}

// Opening one of the agent's SQLite files (sessions, access), the same way for each: private
// whatever the umask, and in WAL mode so a reader never waits on the one writer; and bringing a
// file written by an older agent up to the current schema.
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';

/** The database at `file`, created 0600 when absent; its directory must exist. */
export function openPrivateDatabase(file: string): Database.Database {
  // The file is 0600 before SQLite opens it: its -wal and -shm files take the database file's mode.
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * Brings the file to schema `version` (PRAGMA user_version) with `step`, in one transaction with
 * the version it records: a crash in between leaves the file as it was. Nothing when it is there.
 */
export function upgradeTo(db: Database.Database, version: number, step: () => void): void {
  if ((db.pragma('user_version', { simple: true }) as number) >= version) return;
  db.transaction(() => {
    step();
    db.pragma(`user_version = ${version}`);
  })();
}

/**
 * Forgets one agent in a file whose rows are all keyed by agent: deletes its rows from `tables`, in
 * that order, with statements prepared once (the tables must exist by then).
 */
export function agentPurge(db: Database.Database, tables: readonly string[]): (agent: string) => void {
  const deletes = tables.map((table) => db.prepare(`DELETE FROM ${table} WHERE agent = ?`));
  return (agent) => {
    for (const d of deletes) d.run(agent);
  };
}

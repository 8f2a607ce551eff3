// Opening one of the agent's SQLite files (sessions, access), the same way for each: private
// whatever the umask, and in WAL mode so a reader never waits on the one writer.
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

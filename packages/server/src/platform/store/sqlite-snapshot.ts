// A consistent copy of a SQLite file while it is in use, for `admin backup` and the copy taken
// before migrations: SQLite's online backup API, never the raw file (which may be mid-write).
import SQLite from 'better-sqlite3';

export async function sqliteSnapshot(src: string, dest: string): Promise<void> {
  const db = new SQLite(src, { readonly: true, fileMustExist: true });
  try {
    await db.backup(dest);
  } finally {
    db.close();
  }
}

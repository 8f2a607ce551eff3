// A control plane's config on a data directory and a test database of its own (SQLite in the data
// directory, or a fresh PostgreSQL database under with-postgres): what every test that starts a
// runtime of its own begins with. The caller drops `db` and removes `dataDir` when done.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/index.js';
import { createTestDatabase, databaseEnv } from './database.js';

export interface FreshConfig {
  config: ReturnType<typeof loadConfig>;
  dataDir: string;
  db: Awaited<ReturnType<typeof createTestDatabase>>;
}

/** `env` adds to (or overrides) DATA_DIR and the database's variables. */
export async function freshConfig(tmpPrefix: string, env: Record<string, string> = {}): Promise<FreshConfig> {
  const dataDir = mkdtempSync(join(tmpdir(), tmpPrefix));
  let db: FreshConfig['db'] | undefined;
  try {
    // Its control plane would migrate an empty one first thing: a migrated copy is the same, sooner.
    db = await createTestDatabase({ migrated: true });
    return { config: loadConfig({ DATA_DIR: dataDir, ...databaseEnv(db), ...env }), dataDir, db };
  } catch (err) {
    // A bad `env` (a test of config errors) leaves nothing behind.
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

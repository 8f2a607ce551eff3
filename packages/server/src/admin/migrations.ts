// `npx berth admin migrate --status`: which migrations this build has and which the store applied.
// It never migrates (the server does, at start-up, after a backup).
import type { Config } from '../platform/config/env.js';
import { migrationStatus, openStore } from '../platform/store/database.js';

export async function migrateStatus(c: Pick<Config, 'dataDir' | 'databaseUrl'>) {
  const store = await openStore({ databaseUrl: c.databaseUrl, dataDir: c.dataDir, migrate: false });
  try {
    const all = await migrationStatus(store.db);
    return { applied: all.filter((m) => m.appliedAt), pending: all.filter((m) => !m.appliedAt).map((m) => m.name) };
  } finally {
    await store.close();
  }
}

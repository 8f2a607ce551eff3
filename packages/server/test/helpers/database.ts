// A throwaway database per harness: a fresh SQLite file, or a fresh PostgreSQL database when
// BERTH_TEST_DATABASE_URL points at a server (CI runs the suites both ways).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.BERTH_TEST_DATABASE_URL;
export const DIALECT = PG_URL ? 'postgres' : 'sqlite';

/** One secrets key for every test process: replicas sharing a database must share it. */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7).toString('base64');

/** The environment that points a control plane at a test database (PostgreSQL needs a shared key). */
export function databaseEnv(db: { url: string | undefined }): Record<string, string> {
  return db.url ? { DATABASE_URL: db.url, SECRETS_KEY: TEST_SECRETS_KEY } : {};
}

/**
 * A new database: empty, or with `migrated` a copy of one every migration has run on. The copy
 * costs a fraction of running them (~0.4 s per control plane a test starts on PostgreSQL, hundreds
 * of times a run); the files that test migrations themselves ask for an empty one.
 */
export async function createTestDatabase(
  opts: { migrated?: boolean } = {},
): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  if (!PG_URL) return { url: undefined, drop: async () => {} };
  const name = `berth_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    if (opts.migrated) await ensureTemplate(admin);
    await admin.query(`CREATE DATABASE ${name}${opts.migrated ? ` TEMPLATE ${TEMPLATE}` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlOf(name),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        // Ended even when the drop fails: an open client keeps the test's process alive.
        await c.end();
      }
    },
  };
}

const TEMPLATE = 'berth_t_migrated';
const TEMPLATE_LOCK = 7_301_931;

function urlOf(name: string): string {
  const url = new URL(PG_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * The migrated database copies are made from: the first process that needs it builds it (the
 * others wait on an advisory lock) and publishes it by renaming, so none ever copies a half-built
 * one. A server kept between runs may hold one from older migrations: opening a copy runs the
 * newer ones, as it would on any database.
 */
async function ensureTemplate(admin: pg.Client): Promise<void> {
  const exists = async () =>
    ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE])).rowCount ?? 0) > 0;
  if (await exists()) return;
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    if (await exists()) return;
    const building = `${TEMPLATE}_${randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const { openStore } = await import('../../src/platform/store/database.js');
    const store = await openStore({ databaseUrl: urlOf(building) });
    await store.close();
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

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

export async function createTestDatabase(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  if (!PG_URL) return { url: undefined, drop: async () => {} };
  const name = `berth_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

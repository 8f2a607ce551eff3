// bench:scale's store, grown to n deployments (also bench:backup's): one deployment bought and
// activated the way a user does it, then bulk inserts of copies of its row, 100 per user.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { createRuntime, loadConfig, openStore } from '@berth/server';
import { benchKey, buyAndActivate } from './slots.js';
import { workersAt } from './workers.js';

/** The bench user owns this many deployments; the rest belong to other users, this many each. */
const OWN = 100;
const PER_USER = 100;
export const pgUrl = process.env.BERTH_TEST_DATABASE_URL;
export type Store = 'sqlite' | 'postgres';
/** The store a bench grows when it is not told: PostgreSQL under scripts/with-postgres.sh. */
export const defaultStore: Store = pgUrl ? 'postgres' : 'sqlite';
/** PostgreSQL needs the secrets key given (SQLite keeps a generated one under DATA_DIR). */
export const BENCH_SECRETS_KEY = Buffer.alloc(32, 9).toString('base64');

/** One store per size, each with its own bench user, key and template deployment. */
export interface Sized {
  n: number;
  store: Store;
  dataDir: string;
  databaseUrl: string | undefined;
  key: string;
  deploymentId: string;
  /** The newest `updated_at` among the deployments (epoch ms): every grown row copies the template's. */
  lastWriteMs: number;
}

async function database(n: number, store: Store): Promise<string | undefined> {
  if (store === 'sqlite') return undefined;
  if (!pgUrl) throw new Error('a PostgreSQL store needs BERTH_TEST_DATABASE_URL (run under scripts/with-postgres.sh)');
  const name = `berth_scale_${n}_${process.pid}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// One deployment bought and activated the way a user does it; its row is the template of the rest.
export async function seed(n: number, store: Store = defaultStore): Promise<Sized> {
  const dataDir = mkdtempSync(join(tmpdir(), `berth-scale-${n}-`));
  const databaseUrl = await database(n, store);
  const rt = await createRuntime(
    loadConfig({
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl, SECRETS_KEY: BENCH_SECRETS_KEY } : {}),
      MANAGED_PROVIDER_API_KEY: 'sk-bench',
      LOG_LEVEL: 'warn',
    }),
    { workers: workersAt('seed', 'http://127.0.0.1:9'), reconcileIntervalMs: 3_600_000 },
  );
  const key = await benchKey(rt);
  const deploymentId = await buyAndActivate(rt, key, 'byok', {
    name: 'scale',
    modelProvider: 'openai',
    modelId: 'gpt-4o-mini',
    messengerBotToken: '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x',
    modelApiKey: 'sk-bench',
  });
  await rt.idle();
  await rt.close();
  const sized = { n, store, dataDir, databaseUrl, key, deploymentId };
  return { ...sized, lastWriteMs: await grow(sized) };
}

/** Returns the newest `updated_at` it left (the template's: the copies keep it). */
async function grow({ n, dataDir, databaseUrl, deploymentId }: Omit<Sized, 'lastWriteMs'>): Promise<number> {
  const store = await openStore({ databaseUrl, dataDir });
  const db = store.db;
  const template = await db
    .selectFrom('deployments')
    .selectAll()
    .where('id', '=', deploymentId)
    .executeTakeFirstOrThrow();
  const owner = await db.selectFrom('users').selectAll().where('id', '=', template.user_id).executeTakeFirstOrThrow();
  const base = Date.parse(template.created_at);
  const BATCH = 500;
  let users = 0;
  for (let rows = 1; rows < n; ) {
    const count = Math.min(BATCH, n - rows);
    const batch: Array<typeof template> = [];
    for (let k = 0; k < count; k++, rows++) {
      let userId = owner.id;
      if (rows >= OWN) {
        const u = Math.floor((rows - OWN) / PER_USER);
        if (u >= users) {
          await db
            .insertInto('users')
            .values({ ...owner, id: `scale-user-${u}`, email: `scale-${u}@example.com` })
            .execute();
          users++;
        }
        userId = `scale-user-${u}`;
      }
      const id = randomUUID();
      batch.push({
        ...template,
        id,
        user_id: userId,
        worker_name: `asst-${id}`,
        // Each bot has a token of its own (the column is unique when set).
        bot_token_hash: id.replaceAll('-', '').padEnd(64, '0'),
        worker_url: `http://127.0.0.1:9/agents/asst-${id}`,
        checkout_id: `cs_scale_${rows}`,
        payment_subscription_id: `sub_scale_${rows}`,
        // Older than the template, so the bench user's newest deployment is the one it GETs.
        created_at: new Date(base - rows * 1000).toISOString(),
      });
    }
    await db.transaction().execute(async (tx) => {
      await tx.insertInto('deployments').values(batch).execute();
    });
  }
  // The VACUUM autovacuum runs on a table grown this much within a minute or so (its insert
  // threshold), here before the control plane starts rather than during the rows the bench
  // measures, where it would run beside the GETs. Its ANALYZE (which autovacuum would
  // run too) is left out on purpose: the statistics stay as the seeding control plane left them
  // (none, or gathered at its one row), as a bulk load leaves them, for the control plane's start
  // to gather (statistics.ts).
  if (databaseUrl) await sql`VACUUM deployments, users`.execute(db);
  await store.close();
  return new Date(template.updated_at).getTime();
}

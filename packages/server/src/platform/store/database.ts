// Opens the store: better-sqlite3 (WAL) under DATA_DIR when no DATABASE_URL, PostgreSQL otherwise.
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, MIGRATION_LOCK_ID, Migrator, PostgresDialect, SqliteAdapter, SqliteDialect, sql } from 'kysely';
import SQLite from 'better-sqlite3';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations/index.js';
import { cachingStatements } from './statement-cache.js';
import { runDirectly } from './prepared.js';
import { type Freshened, freshenStatistics } from './statistics.js';
import { BACKSTOP_PAGES, type Checkpointer, startCheckpointer } from './checkpointer.js';
import { openRepos, type Repos, type Transact } from './repos.js';

export type { Dialect } from './dialect.js';
import type { Dialect } from './dialect.js';

export interface Store {
  /** The pool itself: for the store's own schema work (migrations, backup, restore), never a capability's query. */
  db: Kysely<Database>;
  dialect: Dialect;
  /** Every repository over the pool (repos.ts). */
  repos: Repos;
  /** Runs work in one transaction with repositories over it. */
  transaction: Transact;
  /** One round trip to the database (readiness). */
  ping(): Promise<void>;
  /**
   * PostgreSQL: ANALYZE this role's tables that hold data but have no column statistics, or stale
   * ones (a database just restored or bulk-loaded, before autovacuum's next look; statistics.ts
   * says what it costs otherwise). Says those of 1,000 rows or more, and those another session
   * held locked.
   */
  freshenStatistics(): Promise<Freshened>;
  close(): Promise<void>;
}

export interface StoreOptions {
  databaseUrl?: string;
  /** SQLite file; defaults to DATA_DIR/berth.sqlite */
  sqliteFile?: string;
  dataDir?: string;
  /** false: open without migrating (admin migrate --status, backup of a store as it is). */
  migrate?: boolean;
  /** Called with the pending migrations' names before they run, when some already ran (the start-up backup). */
  beforeMigrate?: (pending: string[], db: Kysely<Database>) => Promise<void>;
  /** The clock the job queue stamps with (tests inject one). */
  now?: () => Date;
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  let checkpointer: Checkpointer | undefined;
  let sqliteDb: SQLite.Database | undefined;
  if (opts.databaseUrl) {
    dialect = 'postgres';
    // Loaded only for PostgreSQL: a SQLite control plane starts without it.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle client losing its connection must not crash the process.
    pool.on('error', () => {});
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const file = opts.sqliteFile ?? join(opts.dataDir ?? './data', 'berth.sqlite');
    if (file !== ':memory:') {
      // Private to the service: the directory 0700, the database 0600 before SQLite opens it
      // (its -wal and -shm files take the database file's mode).
      mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    // Checkpoints run in a worker thread (checkpointer.ts); this connection only past the backstop.
    if (file !== ':memory:') {
      sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
      checkpointer = startCheckpointer(file);
    }
    const statements = cachingStatements(sqlite);
    db = new Kysely<Database>({ dialect: new BerthSqliteDialect({ database: statements }) });
    runDirectly(db, statements.direct);
    sqliteDb = sqlite;
  }
  try {
    if (opts.migrate !== false) {
      // An empty SQLite database made from the bundle's schema has nothing to back up or migrate.
      if (sqliteDb !== undefined && (await createFromSchema(sqliteDb)))
        return opened(db, dialect, checkpointer, opts.now);
      if (await upToDate(db)) return opened(db, dialect, checkpointer, opts.now);
    }
    if (opts.beforeMigrate) {
      const all = await migrationStatus(db);
      const pending = all.filter((m) => !m.appliedAt).map((m) => m.name);
      if (pending.length && pending.length < all.length) await opts.beforeMigrate(pending, db);
    }
    if (opts.migrate !== false) await migrate(db);
  } catch (err) {
    await checkpointer?.stop();
    await db.destroy();
    throw err;
  }
  return opened(db, dialect, checkpointer, opts.now);
}

function opened(
  db: Kysely<Database>,
  dialect: Dialect,
  checkpointer: Checkpointer | undefined,
  now: () => Date = () => new Date(),
): Store {
  return {
    db,
    dialect,
    ...openRepos(db, { dialect, now }),
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    freshenStatistics: async () => (dialect === 'postgres' ? freshenStatistics(db) : { analyzed: [], busy: [] }),
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * Whether every migration this build knows is recorded as applied, in one read. Kysely's migrator
 * first reads the catalog to see whether its own tables exist: on PostgreSQL three catalog reads,
 * the first ~100 ms on a fresh connection, all before the control plane can listen. A store that is
 * up to date (every start but the first after an upgrade) needs none of it; anything else (a new
 * database, a migration pending, one unknown to this build) takes the migrator's path, with its lock.
 */
async function upToDate(db: Kysely<any>): Promise<boolean> {
  const known = Object.keys(await migrationProvider.getMigrations());
  let rows: Array<{ name: string }>;
  try {
    rows = await db.selectFrom('berth_migrations').select('name').execute();
  } catch {
    // No migrations table: a new database.
    return false;
  }
  // Exactly the known ones: one this build does not know (a newer build's) is the migrator's to refuse.
  const applied = new Set(rows.map((r) => r.name));
  return applied.size === known.length && known.every((name) => applied.has(name));
}

// SQLite's DDL is transactional, but Kysely's SQLite adapter says it is not, so its migrator ran
// each statement of each pending migration in a commit of its own: a fresh store's ~100 commits
// were most of its creation's time at start-up (issue 30, cold start), and a migration failing
// half-way left the ones before it applied. Saying it is makes the migrator run the pending
// migrations in one transaction, as on PostgreSQL: they all apply or none does. The migrations
// use no PRAGMA (a no-op inside a transaction), and nothing else reads the flag.
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}
class BerthSqliteDialect extends SqliteDialect {
  override createAdapter(): SqliteAdapter {
    return new TransactionalDdlAdapter();
  }
}

/** What the migrations leave in an empty SQLite database: its schema's statements, and the migrations' names. */
export interface FreshSchema {
  migrations: string[];
  ddl: string[];
}

// The bundle carries the schema the migrations make (scripts/bundle-server.mjs takes it at build
// time with freshSqliteSchema() and defines this name); elsewhere it is not defined.
declare const __berthFreshSqliteSchema: FreshSchema | undefined;

/**
 * An empty SQLite database gets the bundle's schema in one exec and one transaction, with the
 * migrations recorded as applied, as Kysely's migrator records them: running the ~100 statements of
 * the migrations through Kysely was the larger part of a fresh store's start (issue 30, cold start).
 * Only when the schema was taken from this build's migrations (the same names); a store that holds
 * anything is migrated as before. True when the schema was applied.
 */
async function createFromSchema(sqlite: SQLite.Database): Promise<boolean> {
  const schema = typeof __berthFreshSqliteSchema === 'undefined' ? undefined : __berthFreshSqliteSchema;
  if (!schema) return false;
  const empty = () => (sqlite.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n === 0;
  if (!empty()) return false;
  const names = Object.keys(await migrationProvider.getMigrations()).sort();
  if (names.join('\n') !== [...schema.migrations].sort().join('\n')) return false;
  try {
    // Checked again under the write lock: a process that created it meanwhile leaves it to the migrator.
    return sqlite
      .transaction(() => {
        if (!empty()) return false;
        sqlite.exec(schema.ddl.join(';\n'));
        sqlite.prepare('INSERT INTO berth_migrations_lock (id, is_locked) VALUES (?, 0)').run(MIGRATION_LOCK_ID);
        const record = sqlite.prepare('INSERT INTO berth_migrations (name, timestamp) VALUES (?, ?)');
        const at = new Date().toISOString();
        for (const name of schema.migrations) record.run(name, at);
        return true;
      })
      .immediate();
  } catch {
    // Rolled back: the migrations make the store as they would have without the bundle's schema.
    return false;
  }
}

/** A SQLite database's schema, a line per object: what the migrations made and its replay are compared by it. */
const SCHEMA_ROWS = `SELECT type || ' ' || name || ' ' || sql AS d FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name`;

/** Build time (scripts/bundle-server.mjs): the schema the migrations leave in an empty SQLite database. */
export async function freshSqliteSchema(): Promise<FreshSchema> {
  const store = await openStore({ sqliteFile: ':memory:' });
  try {
    const { rows } = await sql<{ sql: string }>`
      SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid`.execute(
      store.db,
    );
    const applied = await sql<{ name: string }>`SELECT name FROM berth_migrations ORDER BY name`.execute(store.db);
    // The fresh store gets the DDL only: a migration that writes rows would be lost from it, silently.
    const tables = await sql<{ name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
        AND name NOT IN ('berth_migrations', 'berth_migrations_lock')`.execute(store.db);
    for (const { name } of tables.rows) {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(name)}`.execute(store.db);
      if (rows[0]!.n > 0)
        throw new Error(`a migration writes rows into ${name}: the bundle's fresh-store schema would lack them`);
    }
    const ddl = rows.map((r) => r.sql);
    // Replayed as a fresh store would replay it: what SQLite makes itself (a virtual table's shadow
    // tables, listed with their CREATE) must not be in it, and the result must be what the migrations made.
    const made = await sql.raw<{ d: string }>(SCHEMA_ROWS).execute(store.db);
    const replay = new SQLite(':memory:');
    try {
      replay.exec(ddl.join(';\n'));
      const again = replay.prepare(SCHEMA_ROWS).all() as Array<{ d: string }>;
      if (again.map((r) => r.d).join('\n') !== made.rows.map((r) => r.d).join('\n'))
        throw new Error('differs from what the migrations make');
    } catch (err) {
      throw new Error(`the migrations' schema cannot be replayed into a fresh store: ${(err as Error).message}`);
    } finally {
      replay.close();
    }
    return { ddl, migrations: applied.rows.map((r) => r.name) };
  } finally {
    await store.close();
  }
}

const migrator = (db: Kysely<any>) =>
  new Migrator({
    db,
    provider: migrationProvider,
    migrationTableName: 'berth_migrations',
    migrationLockTableName: 'berth_migrations_lock',
    // Numbers are reserved per change and land in any order; each migration is independent and
    // runs once, so a database that has 0007 still gets a 0005 that landed after it.
    allowUnorderedMigrations: true,
  });

/** Every migration this build knows, with when it was applied to `db` (null: pending). */
export async function migrationStatus(db: Kysely<any>): Promise<Array<{ name: string; appliedAt: string | null }>> {
  const list = await migrator(db).getMigrations();
  return list.map((m) => ({ name: m.name, appliedAt: m.executedAt ? m.executedAt.toISOString() : null }));
}

/** Whether the database holds no table at all (a restore goes only into an empty one). */
export async function isEmptyDatabase(db: Kysely<any>): Promise<boolean> {
  return (await db.introspection.getTables({ withInternalKyselyTables: true })).length === 0;
}

/** Drops every table of the current schema (PostgreSQL): undoes a refused restore into an empty database. */
export async function emptyPostgresSchema(db: Kysely<any>): Promise<void> {
  await sql`DROP SCHEMA public CASCADE`.execute(db);
  await sql`CREATE SCHEMA public`.execute(db);
}

export async function migrate(db: Kysely<any>): Promise<void> {
  const { error, results } = await migrator(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const which = failed ? `migration ${failed.migrationName}` : 'migration';
    throw new Error(`database ${which} failed: ${(error as Error)?.message ?? 'unknown error'}`);
  }
}

// A store that is up to date opens with one read of the migrations table (a start no longer reads
// PostgreSQL's catalog before it listens); anything else still goes through the migrator: a
// migration pending is run (and the start-up backup hears of it first), one unknown to this build
// (a newer build's) is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openStore } from '../src/platform/store/database.js';
import { createTestDatabase, DIALECT } from './helpers/database.js';

test(`store on ${DIALECT}: a pending migration still goes through the migrator (the backup told first), one this build does not know is still refused`, async () => {
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-store-open-'));
  const open = (beforeMigrate?: (pending: string[]) => Promise<void>) =>
    openStore({ databaseUrl: db.url, dataDir, beforeMigrate });
  try {
    const raw = () => openStore({ databaseUrl: db.url, dataDir, migrate: false });
    const first = await open();
    const names = (await first.db
      .selectFrom('berth_migrations' as never)
      .select('name' as never)
      .execute()) as Array<{
      name: string;
    }>;
    const last = names
      .map((r) => r.name)
      .sort()
      .at(-1)!;
    const removed = (await first.db
      .selectFrom('berth_migrations' as never)
      .selectAll()
      .where('name' as never, '=', last as never)
      .executeTakeFirstOrThrow()) as Record<string, unknown>;
    await first.db
      .deleteFrom('berth_migrations' as never)
      .where('name' as never, '=', last as never)
      .execute();
    await first.close();

    // The migrator's path: the start-up backup is told what is pending before it runs.
    let told: string[] = [];
    await assert.rejects(
      open(async (pending) => {
        told = pending;
        throw new Error('backup refused');
      }),
      /backup refused/,
    );
    assert.deepEqual(told, [last]);

    const edit = await raw();
    await edit.db
      .insertInto('berth_migrations' as never)
      .values(removed as never)
      .execute();
    await edit.db
      .insertInto('berth_migrations' as never)
      .values({ ...removed, name: '9999-from-a-newer-build' } as never)
      .execute();
    await edit.close();
    await assert.rejects(open(), /9999-from-a-newer-build/);

    // Up to date: opens, and tells the backup of nothing.
    const edit2 = await raw();
    await edit2.db
      .deleteFrom('berth_migrations' as never)
      .where('name' as never, '=', '9999-from-a-newer-build' as never)
      .execute();
    // The migrator's lock table gone: Kysely's migrator would make it again, the one read does not.
    await sql`DROP TABLE berth_migrations_lock`.execute(edit2.db);
    await edit2.close();
    const upToDate = await open(async () => assert.fail('nothing is pending'));
    await assert.rejects(
      sql`SELECT 1 FROM berth_migrations_lock`.execute(upToDate.db),
      /berth_migrations_lock/,
      'an up-to-date store opens without the migrator (one read of the migrations table)',
    );
    await upToDate.close();
  } finally {
    await db.drop();
  }
});

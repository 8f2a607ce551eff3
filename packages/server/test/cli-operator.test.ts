// The operator's backup, restore and migrate --status, run as an operator runs them: `npx berth
// admin …` in a shell, against the store of a server (SQLite, or PostgreSQL under with-postgres).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, databaseEnv } from './helpers/database.js';
import { runBerth } from './helpers/cli.js';

const PASS = 'an operator passphrase 42';

function cli(env: Record<string, string | undefined>) {
  return (...args: string[]) => runBerth(args, { env });
}

test('admin migrate --status, backup --to and restore --from', async () => {
  const work = mkdtempSync(join(tmpdir(), 'berth-cliop-'));
  const db = await createTestDatabase();
  const target = await createTestDatabase();
  try {
    const env = { DATA_DIR: join(work, 'data'), ...databaseEnv(db), BACKUP_PASSPHRASE: PASS };
    const berth = cli(env);
    const created = await berth('admin', 'create-key', '--email', 'ops@example.com');
    assert.equal(created.status, 0, created.stderr);

    const st = await berth('admin', 'migrate', '--status', '--json');
    assert.equal(st.status, 0, st.stderr);
    const status = JSON.parse(st.stdout);
    assert.deepEqual(status.pending, []);
    assert.ok(status.applied.some((m: { name: string }) => m.name === '0017-operations'));

    const file = join(work, 'ops.backup');
    const noPass = await cli({ ...env, BACKUP_PASSPHRASE: '' })('admin', 'backup', '--to', file);
    assert.equal(noPass.status, 1);
    assert.match(noPass.stderr, /BACKUP_PASSPHRASE is not set/);
    assert.ok(!existsSync(file));

    const made = await berth('admin', 'backup', '--to', file);
    assert.equal(made.status, 0, made.stderr);
    assert.equal(made.stdout.trim(), file);

    const restoredEnv = { DATA_DIR: join(work, 'restored'), ...databaseEnv(target), BACKUP_PASSPHRASE: PASS };
    const wrong = await cli({ ...restoredEnv, BACKUP_PASSPHRASE: 'a different passphrase' })(
      'admin',
      'restore',
      '--from',
      file,
    );
    assert.equal(wrong.status, 1);
    assert.match(wrong.stderr, /wrong passphrase/);
    assert.ok(!existsSync(restoredEnv.DATA_DIR));

    const restored = await cli(restoredEnv)('admin', 'restore', '--from', file);
    assert.equal(restored.status, 0, restored.stderr);
    assert.match(restored.stderr, /the key opened all \d+ stored secrets/);
    // The restored store has the user and its key.
    const keys = await cli(restoredEnv)('admin', 'list-keys', '--email', 'ops@example.com');
    assert.equal(keys.status, 0, keys.stderr);
    assert.match(keys.stdout, /active/);
  } finally {
    await db.drop();
    await target.drop();
    rmSync(work, { recursive: true, force: true });
  }
});

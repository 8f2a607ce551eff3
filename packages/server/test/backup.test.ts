// Backup and restore (DESIGN §7.5): a snapshot taken while the control plane and its agent host
// serve; wiped; restored into an empty DATA_DIR (and, on PostgreSQL, an empty database); the bot
// resumes where it was: it remembers the conversation, answers the next message once, and the
// stored tokens decrypt. A wrong passphrase, a changed or truncated file, a non-empty target:
// each refused with a clear error and nothing restored. Runs on SQLite and, under
// scripts/with-postgres.sh, on PostgreSQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Kysely } from 'kysely';
import { createRuntime, loadConfig } from '../src/index.js';
import { backup } from '../src/admin/backup.js';
import { restore } from '../src/admin/restore.js';
import { catalogFor, MODEL_KEY, startE2E, activeBot } from './helpers/e2e.js';
import { createTestDatabase, databaseEnv, TEST_SECRETS_KEY } from './helpers/database.js';
import { startHarness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { capturingLogger } from './helpers/logs.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { roundsOneAndTwo } from '../src/platform/store/migrations/rounds-1-2.js';

const PASS = 'correct horse battery staple';
const BOT = '7200000301:AAbackupFakeBotTokenForControlPlane_x';

const configOf = (dataDir: string, databaseUrl: string | undefined) => ({
  dataDir,
  databaseUrl,
  secretsKey: databaseUrl ? Buffer.from(TEST_SECRETS_KEY, 'base64') : undefined,
  backupPassphrase: PASS,
});

test('backup while serving → wipe → restore: the bot resumes, answers once, tokens decrypt', async () => {
  const e = await startE2E();
  const out = mkdtempSync(join(tmpdir(), 'berth-bak-'));
  const file = join(out, 'berth.backup');
  let target: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let second: Awaited<ReturnType<typeof createRuntime>> | undefined;
  try {
    const id = await activeBot(e, BOT);
    e.tg.userSends(BOT, 8101, { text: 'remember the word pelican' });
    await e.tg.waitForSent((m) => m.chat_id === 8101 && /pelican/.test(m.text));

    // While serving: a chat in flight does not stop the snapshot.
    const res = await backup(configOf(e.dataDir, e.databaseUrl), file);
    assert.equal(res.manifest.dialect, e.databaseUrl ? 'postgres' : 'sqlite');
    assert.ok(
      res.manifest.entries.some((n) => n.startsWith('agents/') && n.endsWith('.sqlite')),
      'agent store',
    );
    assert.ok(res.manifest.migrations.includes('0017-operations'));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // Encrypted as a whole: neither the token nor the conversation is readable in the file.
    const raw = readFileSync(file);
    assert.ok(!raw.includes(BOT) && !raw.includes('pelican'));

    // Wipe: the control plane stops, its data dir goes; on PostgreSQL a new empty database.
    await e.runtime.close();
    const dataDir = e.dataDir;
    rmSync(dataDir, { recursive: true, force: true });
    target = await createTestDatabase();
    const restored = await restore(configOf(dataDir, target.url), file);
    assert.ok(restored.secretsOpened >= 4, `secrets opened: ${restored.secretsOpened}`);
    assert.ok(!readdirSync(dirname(dataDir)).some((n) => n.includes('.restoring-')), 'no staging left');

    const { logger } = capturingLogger('info');
    second = await createRuntime(
      loadConfig({
        DATA_DIR: dataDir,
        MODEL_CATALOG: catalogFor(e.provider.url),
        TELEGRAM_API_ROOT: e.tg.url,
        MANAGED_PROVIDER_API_KEY: MODEL_KEY,
        ...databaseEnv(target),
      }),
      { logger, runner: { pollMs: 100 } },
    );
    // The stored token decrypts with the restored key.
    const row = await second.store.db
      .selectFrom('deployments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(second.secrets.open(row.bot_token_enc!), BOT);
    assert.equal(row.status, 'active');

    e.tg.userSends(BOT, 8101, { text: 'which word?' });
    await e.tg.waitForSent((m) => m.chat_id === 8101 && /which word/.test(m.text), 30_000);
    // The conversation came back with the agents' store: the model saw the earlier turn.
    const last = e.provider.requests.at(-1)!;
    assert.match(JSON.stringify(last.body), /pelican/);
    // Nothing was answered twice.
    // Waits on the wall clock: a second answer would follow the first within milliseconds, and no
    // event marks that none is coming.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(e.tg.sent.filter((m) => m.chat_id === 8101 && /pelican/.test(m.text)).length, 1);
    assert.equal(e.tg.sent.filter((m) => m.chat_id === 8101 && /which word/.test(m.text)).length, 1);
  } finally {
    await second?.close();
    await target?.drop();
    // The first runtime may be closed already (the wipe): close the rest of the E2E by hand.
    await e.runtime.close().catch(() => {});
    await e.tg.stop();
    await e.provider.stop();
    rmSync(e.dataDir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});

test('refused with nothing restored: wrong passphrase, changed or truncated file, non-empty target', async () => {
  const h = await startHarness();
  const out = mkdtempSync(join(tmpdir(), 'berth-bak-'));
  const file = join(out, 'b.backup');
  const targets: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  try {
    const key = await h.key();
    await activeDeployment(h, key);
    const source = configOf(h.dataDir, h.databaseUrl);
    await backup(source, file);
    await assert.rejects(backup(source, file), /exists; a backup never overwrites/);
    await assert.rejects(
      backup({ ...source, backupPassphrase: undefined }, join(out, 'x')),
      /BACKUP_PASSPHRASE is not set/,
    );

    const fresh = async () => {
      const db = await createTestDatabase();
      targets.push(db);
      return configOf(join(mkdtempSync(join(tmpdir(), 'berth-rt-')), 'data'), db.url);
    };
    const untouched = async (c: { dataDir: string }) => {
      assert.ok(!existsSync(c.dataDir), 'DATA_DIR not created');
      assert.deepEqual(readdirSync(dirname(c.dataDir)), [], 'no staging left behind');
    };

    const wrong = await fresh();
    await assert.rejects(
      restore({ ...wrong, backupPassphrase: 'not the passphrase at all' }, file),
      /wrong passphrase/,
    );
    await untouched(wrong);

    const bytes = readFileSync(file);
    const tampered = Buffer.from(bytes);
    tampered[Math.floor(tampered.length / 2)]! ^= 0x01;
    writeFileSync(join(out, 'tampered'), tampered);
    const t = await fresh();
    await assert.rejects(restore(t, join(out, 'tampered')), /changed or is truncated/);
    await untouched(t);

    writeFileSync(join(out, 'truncated'), bytes.subarray(0, bytes.length - 100));
    const tr = await fresh();
    await assert.rejects(restore(tr, join(out, 'truncated')), /changed or is truncated/);
    await untouched(tr);

    const full = await fresh();
    mkdirSync(full.dataDir);
    writeFileSync(join(full.dataDir, 'something'), 'x');
    await assert.rejects(restore(full, file), /is not empty/);
    assert.deepEqual(readdirSync(full.dataDir), ['something']);

    // The intact file restores (into a fresh target) after all that.
    const ok = await fresh();
    const r = await restore(ok, file);
    assert.ok(r.secretsOpened >= 2);
    assert.ok(existsSync(join(ok.dataDir, ok.databaseUrl ? 'agents' : 'berth.sqlite')) || ok.databaseUrl);
    // A second restore into the now non-empty target is refused.
    await assert.rejects(restore(ok, file), /not empty/);
  } finally {
    await h.close();
    for (const t of targets) await t.drop();
    rmSync(out, { recursive: true, force: true });
  }
});

test('start-up with pending migrations takes a backup first; it restores to the old schema', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-premig-'));
  const db = await createTestDatabase();
  const out = mkdtempSync(join(tmpdir(), 'berth-premig-out-'));
  const targets: Array<Awaited<ReturnType<typeof createTestDatabase>>> = [];
  try {
    const env = { DATA_DIR: dataDir, ...databaseEnv(db), BACKUP_PASSPHRASE: PASS };
    const { logger } = capturingLogger('info');
    const start = () => createRuntime(loadConfig(env), { logger, workers: new FakeWorkers(), dashboardDir: '' });
    // An older server's store: the newest migration undone.
    const first = await start();
    const raw = first.store.db as unknown as Kysely<{ berth_migrations: { name: string } }>;
    await raw.deleteFrom('berth_migrations').where('name', '=', '0017-operations').execute();
    await roundsOneAndTwo['0017-operations']!.down!(first.store.db);
    await first.close();
    assert.equal(existsSync(join(dataDir, 'backups')), false);

    const second = await start();
    await second.close();
    const taken = readdirSync(join(dataDir, 'backups'));
    assert.equal(taken.length, 1);
    assert.match(taken[0]!, /^pre-migrate-.*\.berth-backup$/);
    // No backup when nothing is pending.
    await (await start()).close();
    assert.equal(readdirSync(join(dataDir, 'backups')).length, 1);

    const t = await createTestDatabase();
    targets.push(t);
    const r = await restore(configOf(join(out, 'data'), t.url), join(dataDir, 'backups', taken[0]!));
    assert.ok(!r.manifest.migrations.includes('0017-operations'), 'the snapshot is from before the migration');
    assert.ok(r.manifest.migrations.includes('0014-invitation-inviter'));
  } finally {
    for (const t of targets) await t.drop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
});

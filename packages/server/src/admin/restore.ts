// `npx berth admin restore --from FILE`: only into an empty DATA_DIR (and, with PostgreSQL, an
// empty database). The file is decrypted and authenticated into a staging directory beside
// DATA_DIR first; the key it holds must open every secret stored in its database; only then does
// it land: the staging directory is renamed to DATA_DIR (one step), and PostgreSQL is restored in
// one transaction (and dropped again if the key does not open its secrets). A wrong passphrase, a
// changed or truncated file, or a non-empty target is refused with nothing changed.
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createSecretBox } from '../platform/crypto/secret-box.js';
import { emptyPostgresSchema, isEmptyDatabase, openStore, type Store } from '../platform/store/database.js';
import { BackupError, readBackupFile } from './backup-file.js';
import { type BackupConfig, type Manifest, needPassphrase, SQLITE_FILE } from './backup.js';
import { pgRestore } from './pg-tools.js';

export interface RestoreResult {
  manifest: Manifest;
  /** Stored secrets the restored key opened (all of them, or the restore is refused). */
  secretsOpened: number;
}

function assertEmptyDir(dir: string) {
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new BackupError(`DATA_DIR ${dir} is not empty; restore only into an empty one (nothing was changed).`);
}

async function openedSecrets(store: Store, key: Buffer): Promise<number> {
  const box = createSecretBox(key);
  const sealed = await store.repos.operatorViews.sealedSecrets();
  let bad = 0;
  for (const s of sealed) {
    try {
      box.open(s);
    } catch {
      bad++;
    }
  }
  if (bad)
    throw new BackupError(
      `The key in the backup does not open ${bad} of ${sealed.length} stored secrets; nothing was restored.`,
    );
  return sealed.length;
}

export async function restore(c: BackupConfig, from: string): Promise<RestoreResult> {
  const passphrase = needPassphrase(c);
  assertEmptyDir(c.dataDir);
  if (c.databaseUrl) {
    const target = await openStore({ databaseUrl: c.databaseUrl, migrate: false });
    try {
      if (!(await isEmptyDatabase(target.db)))
        throw new BackupError(
          'The database (DATABASE_URL) is not empty; restore only into an empty one (nothing was changed).',
        );
    } finally {
      await target.close();
    }
  }
  const parent = dirname(c.dataDir);
  if (!existsSync(parent)) throw new BackupError(`${parent} does not exist.`);
  // Beside DATA_DIR, so that putting it in place is one rename on one file system.
  const staging = mkdtempSync(join(parent, `.${basename(c.dataDir)}.restoring-`));
  let pgRestored = false;
  try {
    await readBackupFile(from, passphrase, staging);
    const manifest = JSON.parse(readFileSync(join(staging, 'manifest.json'), 'utf8')) as Manifest;
    unlinkSync(join(staging, 'manifest.json'));
    if (manifest.format !== 1) throw new BackupError(`Unknown backup format ${manifest.format}.`);
    const wanted = c.databaseUrl ? 'postgres' : 'sqlite';
    if (manifest.dialect !== wanted)
      throw new BackupError(
        `This is a ${manifest.dialect} backup; the target is ${wanted} (set or unset DATABASE_URL).`,
      );
    const key = Buffer.from(readFileSync(join(staging, 'secrets.key'), 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new BackupError('The backup holds no valid secrets key.');
    if (c.secretsKey && !c.secretsKey.equals(key))
      throw new BackupError(
        'SECRETS_KEY differs from the key in the backup: set SECRETS_KEY to the key the backed-up server used.',
      );
    // A key given as SECRETS_KEY stays there; only a generated one lives in DATA_DIR.
    if (c.secretsKey) unlinkSync(join(staging, 'secrets.key'));

    let secretsOpened: number;
    if (c.databaseUrl) {
      const dump = join(staging, 'database.pgdump');
      await pgRestore(c.databaseUrl, dump);
      pgRestored = true;
      unlinkSync(dump);
      const store = await openStore({ databaseUrl: c.databaseUrl, migrate: false });
      try {
        secretsOpened = await openedSecrets(store, key);
      } finally {
        await store.close();
      }
    } else {
      const store = await openStore({ sqliteFile: join(staging, SQLITE_FILE), migrate: false });
      try {
        secretsOpened = await openedSecrets(store, key);
      } finally {
        await store.close();
      }
    }
    if (existsSync(c.dataDir)) {
      assertEmptyDir(c.dataDir); // still empty (checked again: time passed)
      rmdirSync(c.dataDir);
    }
    renameSync(staging, c.dataDir);
    return { manifest, secretsOpened };
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    if (pgRestored && c.databaseUrl) await dropEverything(c.databaseUrl);
    throw err;
  }
}

/** Undoes a PostgreSQL restore that was refused afterwards (the database was empty before). */
async function dropEverything(databaseUrl: string) {
  const store = await openStore({ databaseUrl, migrate: false });
  try {
    await emptyPostgresSchema(store.db);
  } finally {
    await store.close();
  }
}

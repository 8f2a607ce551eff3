// `npx berth admin backup --to FILE`: a consistent snapshot while the control plane runs. SQLite
// through its online backup API (better-sqlite3 .backup(), a copy consistent at one moment while
// writers go on), PostgreSQL through pg_dump (one transaction); the local agent host's stores the
// same way; the secrets key. All of it encrypted under BACKUP_PASSPHRASE (backup-file.ts), written
// beside the target and linked into place only when complete: a failed backup leaves no file.
import { existsSync, linkSync, lstatSync, mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sqliteSnapshot } from '../platform/store/sqlite-snapshot.js';
import type { Config } from '../platform/config/env.js';
import { migrationStatus, openStore } from '../platform/store/database.js';
import { buildInfo } from '../ops/index.js';
import { BackupError, type EntrySource, writeBackupFile } from './backup-file.js';
import { pgDump } from './pg-tools.js';

export type BackupConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'secretsKey' | 'backupPassphrase'>;

export interface Manifest {
  format: 1;
  createdAt: string;
  dialect: 'sqlite' | 'postgres';
  version: string;
  commit: string | null;
  migrations: string[];
  /** Where the key came from: SECRETS_KEY (env) or DATA_DIR/secrets.key (file). */
  keySource: 'env' | 'file';
  entries: string[];
}

export const SQLITE_FILE = 'berth.sqlite';
const AGENTS_DIR = 'agents';

export function needPassphrase(c: Pick<Config, 'backupPassphrase'>): string {
  const p = c.backupPassphrase;
  if (!p) throw new BackupError('BACKUP_PASSPHRASE is not set: it encrypts the backup (and the secrets key in it).');
  if (p.length < 12) throw new BackupError('BACKUP_PASSPHRASE is too short: use at least 12 characters.');
  return p;
}

function secretsKeyOf(c: BackupConfig): { key: Buffer; source: 'env' | 'file' } {
  if (c.secretsKey) return { key: c.secretsKey, source: 'env' };
  const file = join(c.dataDir, 'secrets.key');
  if (!existsSync(file)) throw new BackupError(`No secrets key: SECRETS_KEY is unset and ${file} does not exist.`);
  return { key: Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'), source: 'file' };
}

/** The agent host's files: its SQLite stores snapshotted, other regular files as they are. */
async function agentEntries(dataDir: string, staging: string): Promise<EntrySource[]> {
  const root = join(dataDir, AGENTS_DIR);
  if (!existsSync(root)) return [];
  const out: EntrySource[] = [];
  const walk = async (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const st = lstatSync(path);
      const rel = relative(dataDir, path);
      if (st.isDirectory()) await walk(path);
      else if (!st.isFile() || /-(wal|shm|journal)$/.test(name))
        continue; // sockets, links; SQLite side files
      else if (/\.(sqlite|db)$/.test(name)) {
        const copy = join(staging, `agent-${out.length}.sqlite`);
        await sqliteSnapshot(path, copy);
        out.push({ name: rel, file: copy, size: statSync(copy).size });
      } else out.push({ name: rel, bytes: readFileSync(path) });
    }
  };
  await walk(root);
  return out;
}

export interface BackupResult {
  file: string;
  bytes: number;
  manifest: Manifest;
}

export async function backup(c: BackupConfig, to: string, now = () => new Date()): Promise<BackupResult> {
  const passphrase = needPassphrase(c);
  const target = resolve(to);
  if (existsSync(target)) throw new BackupError(`${target} exists; a backup never overwrites a file.`);
  if (!existsSync(dirname(target))) throw new BackupError(`${dirname(target)} does not exist.`);
  const { key, source } = secretsKeyOf(c);
  const staging = mkdtempSync(join(tmpdir(), 'berth-backup-'));
  const partial = join(dirname(target), `.${randomBytes(6).toString('hex')}.partial`);
  try {
    const entries: EntrySource[] = [];
    const dbCopy = join(staging, 'database');
    if (c.databaseUrl) {
      await pgDump(c.databaseUrl, dbCopy);
      entries.push({ name: 'database.pgdump', file: dbCopy, size: statSync(dbCopy).size });
    } else {
      const file = join(c.dataDir, SQLITE_FILE);
      if (!existsSync(file)) throw new BackupError(`No database to back up: ${file} does not exist.`);
      await sqliteSnapshot(file, dbCopy);
      entries.push({ name: SQLITE_FILE, file: dbCopy, size: statSync(dbCopy).size });
    }
    // What the snapshot's schema is at (the PostgreSQL source may move on; its migrations only at start-up).
    const store = await openStore(
      c.databaseUrl ? { databaseUrl: c.databaseUrl, migrate: false } : { sqliteFile: dbCopy, migrate: false },
    );
    let migrations: string[];
    try {
      migrations = (await migrationStatus(store.db)).filter((m) => m.appliedAt).map((m) => m.name);
    } finally {
      await store.close();
    }
    if (!c.databaseUrl) entries[0] = { name: SQLITE_FILE, file: dbCopy, size: statSync(dbCopy).size };
    entries.push({ name: 'secrets.key', bytes: Buffer.from(`${key.toString('base64')}\n`) });
    entries.push(...(await agentEntries(c.dataDir, staging)));
    const manifest: Manifest = {
      format: 1,
      createdAt: now().toISOString(),
      dialect: c.databaseUrl ? 'postgres' : 'sqlite',
      ...buildInfo(),
      migrations,
      keySource: source,
      entries: entries.map((e) => e.name),
    };
    await writeBackupFile(partial, passphrase, [
      { name: 'manifest.json', bytes: Buffer.from(JSON.stringify(manifest, null, 2)) },
      ...entries,
    ]);
    // link, not rename: never replaces a file that appeared meanwhile.
    linkSync(partial, target);
    return { file: target, bytes: statSync(target).size, manifest };
  } finally {
    if (existsSync(partial)) unlinkSync(partial);
    rmSync(staging, { recursive: true, force: true });
  }
}

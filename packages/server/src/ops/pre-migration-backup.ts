// A backup before migrations run at start-up (when some are pending on a store that has data): the
// upgrade path of docs/operations/upgrades.md. With BACKUP_PASSPHRASE, a full encrypted backup
// (admin backup's format) into DATA_DIR/backups; without it, SQLite gets an online copy of its
// database there (the key stays where it is), PostgreSQL only a warning. A backup that fails stops
// the start-up: migrations never run without one.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sqliteSnapshot } from '../platform/store/sqlite-snapshot.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../platform/config/env.js';
import { backup } from '../admin/index.js';
import type { OpsEvents } from '../platform/events.js';

export function preMigrationBackup(
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'secretsKey' | 'backupPassphrase'>,
  log: FastifyBaseLogger,
  events: Pick<OpsEvents, 'emit'>,
  now = () => new Date(),
) {
  return async (pending: string[]) => {
    const dir = join(config.dataDir, 'backups');
    const stamp = now().toISOString().replace(/[:.]/g, '-');
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (config.backupPassphrase) {
        const res = await backup(config, join(dir, `pre-migrate-${stamp}.berth-backup`), now);
        log.info({ file: res.file, bytes: res.bytes, pending }, 'backup taken before migrations');
      } else if (!config.databaseUrl) {
        const file = join(dir, `pre-migrate-${stamp}.sqlite`);
        await sqliteSnapshot(join(config.dataDir, 'berth.sqlite'), file);
        log.info({ file, pending }, 'database copied before migrations (set BACKUP_PASSPHRASE for a full backup)');
      } else {
        log.warn({ pending }, 'migrations run without a backup: set BACKUP_PASSPHRASE to have one taken first');
      }
    } catch (err) {
      events.emit('backup.failed', { reason: `before migrations: ${(err as Error).message}` });
      throw new Error(`the backup before migrations failed, so they were not run: ${(err as Error).message}`);
    }
  };
}

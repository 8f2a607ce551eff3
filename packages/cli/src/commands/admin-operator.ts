// The operator's commands of DESIGN §7.5: backup, restore, migrate --status (and, beside them,
// the operator's view and hand). Each calls a verb of the server's admin/ module.
import { admin, loadConfig } from '@berth/server';
import { status } from '../status.js';
import type { AdminOptions } from './admin.js';

const need = (v: string | undefined, flag: string, command: string) => {
  if (!v) throw new Error(`admin ${command} needs ${flag}; see: npx berth --help`);
  return v;
};

export async function operatorCommand(command: string, opts: AdminOptions): Promise<number> {
  const config = loadConfig();
  switch (command) {
    case 'backup': {
      const to = need(opts.to, '--to FILE', command);
      const done = status(`Backing up ${config.databaseUrl ? 'PostgreSQL' : config.dataDir}`);
      const res = await admin.backup(config, to).finally(done);
      console.error(
        `Backup written: ${res.file} (${res.bytes} bytes; ${res.manifest.entries.length} entries, ${res.manifest.migrations.length} migrations). Keep BACKUP_PASSPHRASE: without it the file cannot be opened.`,
      );
      console.log(res.file);
      return 0;
    }
    case 'restore': {
      const from = need(opts.from, '--from FILE', command);
      const done = status(`Restoring ${from} into ${config.databaseUrl ? 'PostgreSQL' : config.dataDir}`);
      const res = await admin.restore(config, from).finally(done);
      console.error(
        `Restored the backup of ${res.manifest.createdAt} (version ${res.manifest.version}); the key opened all ${res.secretsOpened} stored secrets. Start the server.`,
      );
      return 0;
    }
    case 'migrate': {
      if (!opts.status)
        throw new Error('admin migrate takes --status (migrations run when the server starts, after a backup)');
      const res = await admin.migrateStatus(config);
      if (opts.json) console.log(JSON.stringify(res, null, 2));
      else {
        for (const m of res.applied) console.log(`applied  ${m.name}  ${m.appliedAt}`);
        for (const m of res.pending) console.log(`pending  ${m}`);
        console.error(`${res.applied.length} applied, ${res.pending.length} pending`);
      }
      return 0;
    }
    default:
      throw new Error(`unknown command "admin ${command}"; see: npx berth --help`);
  }
}

// bench:backup's backup process: what `npx berth admin backup --to FILE` runs (the admin verb,
// built), in a process of its own beside the serving control plane. Reports on fd 3 its wall time,
// its CPU time and the file's size; with `--baseline`, the plain copy of the SQLite file (or
// pg_dump alone) instead, timed the same way.
import { copyFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { admin, loadConfig } from '@berth/server';
import { ready } from './processes.js';

const [mode, dataDir, databaseUrl, to] = [
  process.argv[2]!,
  process.argv[3]!,
  process.argv[4] || undefined,
  process.argv[5]!,
];
const config = loadConfig({
  DATA_DIR: dataDir,
  ...(databaseUrl ? { DATABASE_URL: databaseUrl, SECRETS_KEY: Buffer.alloc(32, 9).toString('base64') } : {}),
  BACKUP_PASSPHRASE: 'bench-backup-passphrase-0123',
  LOG_LEVEL: 'warn',
});
const t0 = performance.now();
const c0 = process.cpuUsage();
if (mode === 'backup') await admin.backup(config, to);
else if (databaseUrl) {
  // pg_dump alone, custom format (what the backup runs). Its CPU, like the backup's pg_dump, is
  // its own process's and not in cpuMs.
  const u = new URL(databaseUrl);
  const res = spawnSync('pg_dump', ['-Fc', '-f', to], {
    env: {
      ...process.env,
      PGHOST: u.searchParams.get('host') ?? u.hostname,
      PGPORT: u.port || '5432',
      PGUSER: decodeURIComponent(u.username),
      PGPASSWORD: decodeURIComponent(u.password),
      PGDATABASE: u.pathname.slice(1),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`pg_dump exited with ${res.status}`);
} else copyFileSync(`${dataDir}/berth.sqlite`, to);
const wallMs = performance.now() - t0;
const c1 = process.cpuUsage(c0);
ready(JSON.stringify({ done: true, wallMs, cpuMs: (c1.user + c1.system) / 1000, bytes: statSync(to).size }));
process.exit(0);

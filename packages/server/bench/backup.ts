// bench:backup — `berth admin backup` of a store of 100,000 deployments (BENCH_BACKUP_SIZE) while
// the control plane serves GET /assistants/{id} at a fixed rate. Printed next to baselines from
// the same run: the raw database's size and a plain copy of its file (SQLite), or pg_dump alone
// and the database's size (PostgreSQL, under scripts/with-postgres.sh); and the GET's latency
// during the backup next to its latency at rest. The store is bench:scale's (scale-seed.ts).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ms, openLoop, report, type Target } from './load.js';
import { start, table } from './processes.js';
import { pgUrl, seed } from './scale-seed.js';

const N = Number(process.env.BENCH_BACKUP_SIZE ?? 100_000);
const RATE = Number(process.env.BENCH_BACKUP_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);

process.stderr.write(`growing a store to ${N} deployments…\n`);
const s = await seed(N);
// At 100,000 the control plane restores every worker before it reports ready: minutes on a busy machine.
process.env.BENCH_START_TIMEOUT_MS ??= '900000';
const out = mkdtempSync(join(tmpdir(), 'berth-bench-backup-'));
const cp = await start('scale-control-plane.ts', [s.dataDir, s.databaseUrl ?? ''], (l) =>
  l.startsWith('{"ready":true') ? l : undefined,
);
const info = JSON.parse(cp.value) as { url: string };
const get: Target = {
  origin: info.url,
  method: 'GET',
  path: `/api/v1/assistants/${s.deploymentId}`,
  headers: { 'x-api-key': s.key },
};
type Run = { wallMs: number; cpuMs: number; bytes: number };
const run = async (mode: 'backup' | 'baseline', file: string): Promise<Run> => {
  const c = await start('backup-run.ts', [mode, s.dataDir, s.databaseUrl ?? '', join(out, file)], (l) =>
    l.startsWith('{"done":true') ? l : undefined,
  );
  return JSON.parse(c.value) as Run;
};
try {
  const rawBytes = s.databaseUrl
    ? await (async () => {
        const c = new pg.Client({ connectionString: s.databaseUrl });
        await c.connect();
        const r = await c.query('SELECT pg_database_size(current_database())::bigint AS n');
        await c.end();
        return Number(r.rows[0].n);
      })()
    : statSync(join(s.dataDir, 'berth.sqlite')).size;
  process.stderr.write('GET at rest…\n');
  const rest = await openLoop(get, RATE, SECONDS);
  process.stderr.write(s.databaseUrl ? 'pg_dump alone…\n' : 'a plain copy of the file…\n');
  const base = await run('baseline', 'baseline');
  process.stderr.write('berth admin backup while serving…\n');
  const [during, backup] = await Promise.all([openLoop(get, RATE, SECONDS), run('backup', 'berth.backup')]);
  const what = s.databaseUrl ? 'pg_dump -Fc alone (baseline)' : 'plain copy of berth.sqlite (baseline)';
  console.log(
    `\nbench:backup (${s.databaseUrl ? 'PostgreSQL' : 'SQLite'}, ${N.toLocaleString('en')} deployments; GET at ${RATE} req/s for ${SECONDS} s; shared machine)\n`,
  );
  const mb = (b: number) => (b / 1e6).toFixed(1);
  table(
    ['', 'wall ms', 'CPU ms (this process)', 'file MB'],
    [
      ['raw database (baseline)', '', '', mb(rawBytes)],
      [what, base.wallMs.toFixed(0), base.cpuMs.toFixed(0), mb(base.bytes)],
      ['berth admin backup, while serving', backup.wallMs.toFixed(0), backup.cpuMs.toFixed(0), mb(backup.bytes)],
    ],
  );
  table(
    ['GET /assistants/{id}', 'p50 ms', 'p99 ms', 'errors'],
    [
      ['at rest (baseline)', ms(rest.p50), ms(rest.p99), String(rest.errors)],
      ['during the backup', ms(during.p50), ms(during.p99), String(during.errors)],
    ],
  );
  report('backup', {
    dialect: pgUrl ? 'postgres' : 'sqlite',
    n: N,
    rawBytes,
    baseline: base,
    backup,
    getAtRest: { p50: rest.p50, p99: rest.p99 },
    getDuring: { p50: during.p50, p99: during.p99, errors: during.errors },
  });
} finally {
  const exited = new Promise((r) => cp.child.once('exit', r));
  cp.child.kill('SIGINT');
  await exited;
  rmSync(out, { recursive: true, force: true });
  rmSync(s.dataDir, { recursive: true, force: true });
}
process.exit(0);

// pg_dump and pg_restore (Debian's postgresql-client), given the connection through libpq's
// environment variables: a password never appears in a command line that `ps` shows.
import { spawn } from 'node:child_process';

function libpqEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const u = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LANG: 'C', HOME: process.env.HOME };
  const host = u.searchParams.get('host') ?? decodeURIComponent(u.hostname);
  if (host) env.PGHOST = host;
  if (u.port) env.PGPORT = u.port;
  if (u.username) env.PGUSER = decodeURIComponent(u.username);
  if (u.password) env.PGPASSWORD = decodeURIComponent(u.password);
  env.PGDATABASE = decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres';
  const ssl = u.searchParams.get('sslmode');
  if (ssl) env.PGSSLMODE = ssl;
  return env;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err = (err + c).slice(-4000)));
    child.on('error', (e) =>
      reject(new Error(`${cmd} could not be run (${(e as Error).message}); install postgresql-client`)),
    );
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} failed: ${err.trim() || `exit ${code}`}`)),
    );
  });
}

/** A consistent snapshot (pg_dump takes one transaction) in pg_dump's custom format. */
export function pgDump(databaseUrl: string, file: string): Promise<void> {
  return run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--file=${file}`], libpqEnv(databaseUrl));
}

/** Into an empty database, in one transaction: either all of it lands or none. */
export function pgRestore(databaseUrl: string, file: string): Promise<void> {
  const env = libpqEnv(databaseUrl);
  return run(
    'pg_restore',
    ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${env.PGDATABASE}`, file],
    env,
  );
}

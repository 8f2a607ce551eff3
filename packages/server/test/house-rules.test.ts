// House rules a dependency check cannot see (DESIGN §6): only the store writes SQL. The Kysely
// instance reaches capabilities through Services (for transactions), so an import rule alone
// would not notice a query written outside platform/store (it happened twice: payment event ids
// and purchase idempotency keys).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(import.meta.dirname, '../src');
/** Where SQL may be written: the store, and the job queue's own table (platform/jobs). */
const ALLOWED = /^platform\/(store|jobs)\//;
const QUERY =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<[^`]*>)?`|\bsql\.(raw|ref|lit|id|join)\(/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('only platform/store (and the job queue) writes SQL', () => {
  const offenders = files(SRC)
    .map((f) => relative(SRC, f))
    .filter((f) => !ALLOWED.test(f))
    .filter((f) => QUERY.test(readFileSync(join(SRC, f), 'utf8')));
  assert.deepEqual(offenders, [], `queries outside the store: ${offenders.join(', ')}`);
});

// SQLite runs the pending migrations in one transaction (platform/store/database.ts), where a PRAGMA
// is a silent no-op: a table rebuild that turned foreign keys off would run with them on, and the
// DROP of a parent table would cascade into its children's rows. VACUUM and ATTACH fail there.
test('no migration uses PRAGMA, VACUUM or ATTACH (they run inside one transaction)', () => {
  const dir = join(SRC, 'platform/store/migrations');
  const offenders = files(dir)
    .map((f) => relative(SRC, f))
    .filter((f) => /\b(pragma|vacuum|attach)\b/i.test(readFileSync(join(SRC, f), 'utf8')));
  assert.deepEqual(offenders, [], `migrations that need to run outside a transaction: ${offenders.join(', ')}`);
});

// The CLI runs in-process in its tests (cli/src/io.ts): a command that writes to process.stdout
// prints nothing there, and twice a new command did (mcp, channels) and its test failed.
test('CLI commands write through io(), never to the process streams', () => {
  const cli = join(import.meta.dirname, '../../cli/src');
  const offenders = files(cli)
    .map((f) => relative(cli, f))
    .filter((f) => f !== 'main.ts' && f !== 'io.ts')
    .filter((f) =>
      /\bprocess\.(stdout|stderr)\b|\bconsole\.(log|error|warn)\(/.test(readFileSync(join(cli, f), 'utf8')),
    );
  assert.deepEqual(offenders, [], `write through io(): ${offenders.join(', ')}`);
});

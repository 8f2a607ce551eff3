// Which test files run, and on which store. A file runs on PostgreSQL when it reaches the test
// database helper (packages/server/test/helpers/database.ts) through its relative imports: that
// helper is the only way a test gets a PostgreSQL database, so a file that never reaches it runs
// the same code on either store. The dashboard's files reach it too, but only through the control
// plane's HTTP API, whose every route the dashboard calls is proven on PostgreSQL by the server's
// own files: they run on SQLite alone (a browser story per store cost CI 290 s of file time and
// proved no store behaviour the server's files do not; docs/decisions/0031-ci-round-4.md).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const DATABASE_HELPER = resolve('packages/server/test/helpers/database.ts');
const THROUGH_THE_API_ONLY = ['packages/dashboard/'];

/** @returns {{ file: string, store: 'sqlite' | 'postgres', bytes: number }[]} */
export function planTests({ stores, filter = [] }) {
  let files = readdirSync('packages')
    .map((p) => join('packages', p, 'test'))
    .filter((d) => existsSync(d) && statSync(d).isDirectory())
    .flatMap(findTests)
    .sort();
  if (filter.length) files = files.filter((f) => filter.some((s) => f.includes(s)));
  const jobs = [];
  for (const file of files) {
    const bytes = statSync(file).size;
    if (stores.includes('sqlite')) jobs.push({ file, store: 'sqlite', bytes });
    if (
      stores.includes('postgres') &&
      reachesStore(resolve(file)) &&
      !THROUGH_THE_API_ONLY.some((p) => file.startsWith(p))
    )
      jobs.push({ file, store: 'postgres', bytes });
  }
  return jobs;
}

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(relative('.', path));
  }
  return out;
}

const memo = new Map();
function reachesStore(file, seen = new Set()) {
  if (file === DATABASE_HELPER) return true;
  if (memo.has(file)) return memo.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  const found = relativeImports(file).some((dep) => reachesStore(dep, seen));
  if (found) memo.set(file, true);
  return found;
}

// Static and dynamic imports of relative paths; `.js` specifiers name the `.ts` file beside them.
function relativeImports(file) {
  const source = readFileSync(file, 'utf8');
  const out = [];
  for (const m of source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), m[1]);
    const candidate = [base.replace(/\.js$/, '.ts'), `${base}.ts`, base].find(
      (p) => existsSync(p) && statSync(p).isFile(),
    );
    if (candidate) out.push(candidate);
  }
  return out;
}

#!/usr/bin/env node
// Runs every *.test.ts file under packages/*/test with node's own test runner (through tsx, with
// the `berth-source` export condition so workspace packages resolve to their TypeScript).
// Node 20's --test does not expand globs nor pick up .ts files by itself, hence this list.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function findTests(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

// The binaries the tests spawn (agent host, CLI) run the built JavaScript: bring dist/ up to date.
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

const filter = process.argv.slice(2);
let files = readdirSync('packages')
  .map((p) => join('packages', p, 'test'))
  .filter((d) => {
    try {
      return statSync(d).isDirectory();
    } catch {
      return false;
    }
  })
  .flatMap(findTests)
  .sort();
if (filter.length) files = files.filter((f) => filter.some((s) => f.includes(s)));
if (!files.length) {
  console.error('no test files matched');
  process.exit(1);
}
// TEST_CONCURRENCY=N runs N test files at once (node's default is cores - 1). Off by default: the
// files spawn servers and agent hosts, and only a full run on both stores can show that two at a
// time adds no flakiness (docs/decisions/0030-house.md has the figures measured so far).
const concurrency = process.env.TEST_CONCURRENCY ? [`--test-concurrency=${Number(process.env.TEST_CONCURRENCY)}`] : [];
// A file that never ends (a test or hook awaiting a promise that never settles) fails by name after
// TEST_FILE_TIMEOUT_SECONDS (10 minutes; the longest, the crash test's 100 runs, took 149–285 s in CI),
// and the run goes on. Without it, node waits for ever: a CI run was cut off at 90 minutes with
// nothing saying which file hung.
const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_SECONDS ?? 600) * 1000;
const res = spawnSync(
  process.execPath,
  [
    '--conditions=berth-source',
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-timeout=${timeoutMs}`,
    ...concurrency,
    ...files,
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'test' },
  },
);
process.exit(res.status ?? 1);

// What .ci/run tells the person reading a run (scripts/ci-steps.sh): every step's result and time, a
// failed run's too. A failed test step used to end the run at once, and the steps beside it (lint,
// the production install, the images) went on with nobody reading their output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');

interface Run {
  code: number | null;
  out: string;
}

function runCi(body: string): Promise<Run> {
  // One pipe for both streams, as a terminal shows them: in order.
  const script = `exec 2>&1\nset -euo pipefail\n. scripts/ci-steps.sh\necho "logs in $logs"\n${body}`;
  const child = spawn('bash', ['-c', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

/** Each step's log has been printed, and their directory is gone. */
function logsRemoved(out: string) {
  const dir = /^logs in (\S+)$/m.exec(out)?.[1];
  if (!dir?.startsWith('/tmp/berth-ci.')) assert.fail(`the run named its logs' directory:\n${out}`);
  assert.equal(existsSync(dir), false, `${dir} is left behind`);
}

/** The table that ends the run, one line per step, in the order they ended. */
function table(out: string): string[] {
  const at = out.lastIndexOf('== time per step');
  assert.notEqual(at, -1, `the run printed its table:\n${out}`);
  return out
    .slice(at)
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((l) => l.replace(/^\s*\d+ s {2}/, ''));
}

test('a failed test step still reports each step beside it, its output, its time and whether it passed', {
  timeout: 30_000,
}, async () => {
  const done = runCi(`
background "lint" bash -c 'sleep 1; echo "lint: 0 errors"'
background "chart" bash -c 'echo "chart: a manifest is invalid"; exit 3'
step "tests" bash -c 'echo "1 test failed"; exit 7'
finish "lint"
echo "never reached"
`);
  const { code, out } = await done;
  assert.equal(code, 7, 'the run fails with the test step');
  assert.match(out, /lint: 0 errors/, "the lint's result, though it ended after the tests failed");
  assert.match(out, /chart: a manifest is invalid/);
  assert.match(out, /CI: step 'chart' failed \(exit 3\)/);
  assert.doesNotMatch(out, /never reached/);
  assert.deepEqual(table(out), [
    'tests: FAILED (exit 7)',
    'lint (beside the others)',
    'chart (beside the others): FAILED (exit 3)',
    'the whole run',
  ]);
  logsRemoved(out);
});

test('a step beside the others that fails stops the run at its finish, once the rest are reported', {
  timeout: 30_000,
}, async () => {
  const done = runCi(`
background "images" bash -c 'sleep 1; echo "images answer"'
background "chart" bash -c 'exit 4'
step "tests" true
finish "chart"
echo "never reached"
`);
  const { code, out } = await done;
  assert.equal(code, 4);
  assert.match(out, /images answer/);
  assert.doesNotMatch(out, /never reached/);
  assert.deepEqual(table(out), [
    'tests',
    'chart (beside the others): FAILED (exit 4)',
    'images (beside the others)',
    'the whole run',
  ]);
});

test('a run that passes lists each step once, in the order they ended', { timeout: 30_000 }, async () => {
  const done = runCi(`
background "lint" bash -c 'echo linted'
step "install" true
step "tests" true
finish "lint"
`);
  const { code, out } = await done;
  assert.equal(code, 0);
  assert.equal(out.match(/linted/g)?.length, 1, 'a step finished is not reported again at the end');
  assert.deepEqual(table(out), ['install', 'tests', 'lint (beside the others)', 'the whole run']);
  logsRemoved(out);
});

// What run-tests.mjs shows of a file it had to stop: the spec reporter of Node 22 and 24 prints an
// error only in its closing summary, so a hook that failed and left the process running showed as a
// bare file name (CI, a Kubernetes file's `after` hook) and nothing said why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failingTests, failuresSoFar } from '../../../scripts/test-output.mjs';
import { until } from './helpers/until.js';

const FIXTURE = join(import.meta.dirname, 'fixtures/after-hook-hangs.mjs');

test('a file stopped after a hook failed shows that error and where it was thrown, read from its TAP output', async () => {
  const tap = join(mkdtempSync(join(tmpdir(), 'berth-tap-')), 'file.tap');
  // The reporters run-tests.mjs gives each file.
  const child = spawn(
    process.execPath,
    [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      FIXTURE,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  child.stdout.on('data', (c) => (stdout += c));
  try {
    const shown = await until('the failure in the TAP output', () => failuresSoFar(tap) || undefined, 20_000);
    assert.equal(child.exitCode, null, 'the file is still running (its timer)');
    assert.match(shown, /not ok \d+ - .*after-hook-hangs\.mjs/);
    assert.match(shown, /error: 'the cluster would not stop: a pod is still starting'/);
    assert.match(shown, /after-hook-hangs\.mjs:9:\d+/, 'the stack names the line that threw');
    assert.doesNotMatch(shown, /ok \d+ - passes/, 'only failures');
    // What the runner prints at the end for this file: the stopped file's output with those failures.
    const output = `${stdout}\nthe file was still running after 600 s and was stopped\n${shown}`;
    assert.match(failingTests(output), /the cluster would not stop: a pod is still starting/);
  } finally {
    child.kill('SIGKILL');
  }
});

test('a file with no TAP output, or no failure in it, adds nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-tap-'));
  assert.equal(failuresSoFar(join(dir, 'never-written.tap')), '');
  writeFileSync(
    join(dir, 'ok.tap'),
    'TAP version 13\n# Subtest: passes\nok 1 - passes\n  ---\n  duration_ms: 1.2\n  ...\n',
  );
  assert.equal(failuresSoFar(join(dir, 'ok.tap')), '');
});

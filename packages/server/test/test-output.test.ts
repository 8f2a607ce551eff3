// What run-tests.mjs shows of a file it had to stop: the spec reporter of Node 22 and 24 prints an
// error only in its closing summary, so a hook that failed and left the process running showed as a
// bare file name (CI, a Kubernetes file's `after` hook) and nothing said why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failingTests, failuresSoFar, reporterArgs } from '../../../scripts/test-output.mjs';
import { until } from './helpers/until.js';

const FIXTURE = join(import.meta.dirname, 'fixtures/after-hook-hangs.mjs');

test('a file stopped after a hook failed shows each failure whole, its error and where it was thrown, from its TAP output', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-tap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const tap = join(dir, 'file.tap');
  // The reporters run-tests.mjs gives each file.
  const child = spawn(process.execPath, [...reporterArgs(tap), FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.on('data', (c) => (stdout += c));
  const shown = await until(
    'both failures in the TAP output',
    () => (failuresSoFar(tap).includes('would not stop') ? failuresSoFar(tap) : undefined),
    20_000,
  );
  assert.equal(child.exitCode, null, 'the file is still running (its timer)');
  const blocks = shown.split(/^(?=not ok )/m).slice(1);
  assert.equal(blocks.length, 2, 'the two failures, not the test that passed');
  const [diff, hook] = blocks as [string, string];
  assert.match(diff, /^not ok \d+ - a long list differs/);
  // Cut at the diff's first `...` line, the block would stop before the stack.
  assert.match(diff, /after-hook-hangs\.mjs:11:\d+/, 'the failed assertion, past the skipped lines of its diff');
  assert.match(hook, /^not ok \d+ - .*after-hook-hangs\.mjs/);
  assert.match(hook, /error: 'the cluster would not stop: a pod is still starting'/);
  assert.match(hook, /after-hook-hangs\.mjs:16:\d+/, 'the stack names the line that threw');
  // What the runner prints at the end for this file: the stopped file's output with those failures.
  const output = `${stdout}\nthe file was still running after 600 s and was stopped\n${shown}`;
  const atTheEnd = failingTests(output);
  assert.match(atTheEnd, /a long list differs/);
  assert.match(atTheEnd, /the cluster would not stop: a pod is still starting/, 'not pushed out by the long diff');
});

test('a file with no TAP output, or no failure in it, adds nothing', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-tap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.equal(failuresSoFar(join(dir, 'never-written.tap')), '');
  writeFileSync(
    join(dir, 'ok.tap'),
    'TAP version 13\n# Subtest: passes\nok 1 - passes\n  ---\n  duration_ms: 1.2\n  ...\n',
  );
  assert.equal(failuresSoFar(join(dir, 'ok.tap')), '');
});

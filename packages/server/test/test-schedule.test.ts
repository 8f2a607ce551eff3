// The test runner's lanes (scripts/test-schedule.mjs): the files that mostly wait run in a lane of
// their own, so CI's computing lanes are not held by them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hasWork, nextIndex, recordedTime, waits } from '../../../scripts/test-schedule.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');

type Job = { name: string; ms: number; cpuMs?: number; ready?: boolean };
const waiting = (j: Job) => waits(recordedTime({ ms: j.ms, cpuMs: j.cpuMs }));
const ready = (j: Job) => j.ready !== false;

// Longest first, as the runner sorts them.
const jobs: Job[] = [
  { name: 'crash test, computes', ms: 126_000, cpuMs: 41_000 },
  { name: 'telegram pacing, waits', ms: 51_000, cpuMs: 4_100 },
  { name: 'kubernetes, computes', ms: 40_000, cpuMs: 12_500 },
  { name: 'reminders, waits', ms: 25_800, cpuMs: 2_400 },
  { name: 'short and idle: too short to tell', ms: 3_000, cpuMs: 100 },
];

test('a file slow on the wall but light on CPU waits; a short one, or one of unknown CPU, does not', () => {
  assert.equal(waits(recordedTime({ ms: 51_000, cpuMs: 4_100 })), true);
  assert.equal(waits(recordedTime({ ms: 40_000, cpuMs: 12_500 })), false);
  assert.equal(waits(recordedTime({ ms: 3_000, cpuMs: 100 })), false);
  // The durations older runs wrote hold the wall time alone.
  assert.deepEqual(recordedTime(51_000), { ms: 51_000 });
  assert.equal(waits(recordedTime(51_000)), false);
  assert.equal(recordedTime('garbage'), undefined);
  assert.equal(waits(undefined), false);
});

test('the waiting lane takes only the files that wait, longest first; the others take the computing files first', () => {
  const pending = [...jobs];
  const take = (lane: 'waiting' | 'computing') => {
    const i = nextIndex(pending, { lane, waiting, ready });
    return i < 0 ? undefined : pending.splice(i, 1)[0].name;
  };
  assert.equal(take('computing'), 'crash test, computes');
  assert.equal(take('waiting'), 'telegram pacing, waits');
  assert.equal(take('computing'), 'kubernetes, computes');
  assert.equal(take('computing'), 'short and idle: too short to tell');
  // No computing file is left to start: a computing lane helps with the waiting ones.
  assert.equal(take('computing'), 'reminders, waits');
  assert.equal(hasWork(pending, { lane: 'waiting', waiting }), false);
  assert.equal(take('waiting'), undefined);
});

test('a file whose Node is not in place yet is left for later, and the lane still has work to wait for', () => {
  const pending: Job[] = [{ name: 'agent file on Node 22, waits', ms: 35_000, cpuMs: 2_500, ready: false }];
  assert.equal(nextIndex(pending, { lane: 'waiting', waiting, ready }), -1);
  assert.equal(hasWork(pending, { lane: 'waiting', waiting }), true);
  pending[0].ready = true;
  assert.equal(nextIndex(pending, { lane: 'waiting', waiting, ready }), 0);
});

test('a Node that CI failed to put in place stops the run at once, saying so, instead of a wait of many minutes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-node-lts-'));
  const node = join(dir, 'node-22');
  writeFileSync(`${node}.failed`, 'scripts/node-lts.sh 22 failed (exit 1): its output says why\n');
  const t0 = Date.now();
  const run = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'packages/agent/test/time-zones.test.ts'], {
    cwd: ROOT,
    env: { ...process.env, TEST_NODE_AGENT: node, TEST_STORES: 'sqlite' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /node-22 will not appear: scripts\/node-lts\.sh 22 failed/);
  assert.ok(Date.now() - t0 < 60_000);
});

// The test runner's lanes (scripts/test-schedule.mjs): the files that mostly wait run in a lane of
// their own, so CI's computing lanes are not held by them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMeter, hasWork, nextIndex, recordedTime, runShare, waits } from '../../../scripts/test-schedule.mjs';
import { until } from './helpers/until.js';
import { REFUSED_PORT } from './helpers/callback-receiver.js';

const ROOT = resolve(import.meta.dirname, '../../..');

type Job = { name: string; ms: number; cpuMs?: number; ready?: boolean };
/** The share of CPU of the run these times come from (the run that measured the lane). */
const SHARE = 0.465;
const waiting = (j: Job) => waits(recordedTime({ ms: j.ms, cpuMs: j.cpuMs }), SHARE);
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
  assert.equal(waits(recordedTime({ ms: 51_000, cpuMs: 4_100 }), SHARE), true);
  assert.equal(waits(recordedTime({ ms: 40_000, cpuMs: 12_500 }), SHARE), false);
  assert.equal(waits(recordedTime({ ms: 3_000, cpuMs: 100 }), SHARE), false);
  // The durations older runs wrote hold the wall time alone.
  assert.deepEqual(recordedTime(51_000), { ms: 51_000 });
  assert.equal(waits(recordedTime(51_000), SHARE), false);
  // Nor when no file of the run has a known CPU.
  assert.equal(runShare([recordedTime(51_000), recordedTime(3_000)]), undefined);
  assert.equal(waits(recordedTime({ ms: 51_000, cpuMs: 4_100 }), undefined), false);
  assert.equal(recordedTime('garbage'), undefined);
  assert.equal(waits(undefined, SHARE), false);
});

test('the same files wait whether their times were recorded on a quiet machine or a busier one', () => {
  // A busier machine stretches every file's wall time, computing or waiting, for the same CPU.
  const quiet = [
    { name: 'tsc check, computes', ms: 70_000, cpuMs: 24_000 },
    { name: 'crash test, computes', ms: 100_000, cpuMs: 33_000 },
    { name: 'browser test, computes', ms: 60_000, cpuMs: 40_000 },
    { name: 'telegram pacing, waits', ms: 51_000, cpuMs: 4_100 },
    { name: 'pods, wait', ms: 30_000, cpuMs: 5_500 },
  ];
  const busier = quiet.map((f) => ({ ...f, ms: Math.round(f.ms * 1.35) }));
  const waitingIn = (run: typeof quiet) => {
    const share = runShare(run.map((f) => recordedTime(f)));
    return run.filter((f) => waits(recordedTime(f), share)).map((f) => f.name);
  };
  assert.deepEqual(waitingIn(quiet), ['telegram pacing, waits', 'pods, wait']);
  assert.deepEqual(waitingIn(busier), ['telegram pacing, waits', 'pods, wait']);
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

test("TEST_NODE_SQLITE carries the SQLite files, not the agent's own: those stay on the machine's Node", () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-node-lts-'));
  const node = join(dir, 'node-22');
  writeFileSync(`${node}.failed`, 'scripts/node-lts.sh 22 failed (exit 1): its output says why\n');
  const run = (file: string) =>
    spawnSync(process.execPath, ['scripts/run-tests.mjs', file], {
      cwd: ROOT,
      env: { ...process.env, TEST_NODE_SQLITE: node, TEST_NODE_AGENT: '', TEST_STORES: 'sqlite' },
      encoding: 'utf8',
      timeout: 120_000,
    });
  const agent = run('packages/agent/test/error-codes.test.ts');
  assert.equal(agent.status, 0, agent.stderr);
  assert.match(agent.stdout, new RegExp(`the agent's files: Node ${process.version.replace(/\./g, '\\.')}\\b`));
  const server = run('packages/server/test/backoff.test.ts');
  assert.equal(server.status, 2, server.stderr);
  assert.match(server.stderr, /node-22 will not appear: scripts\/node-lts\.sh 22 failed/);
});

test("files reaped in one turn of the runner's loop share a CPU reading: theirs is unknown, not all or nothing", async () => {
  let total = 1_000;
  const meter = cpuMeter(() => total);
  total += 700;
  const alone = meter.exited();
  await new Promise((r) => setImmediate(r));
  assert.equal(alone.ms, 700);
  // Two exits in one turn: the first reading holds both files' CPU and the second 0.
  total += 5_000 + 300;
  const first = meter.exited();
  const second = meter.exited();
  assert.deepEqual([first.ms, second.ms], [5_300, 0]);
  await new Promise((r) => setImmediate(r));
  assert.ok(Number.isNaN(first.ms) && Number.isNaN(second.ms), 'neither reading is kept');
  total += 40;
  const next = meter.exited();
  await new Promise((r) => setImmediate(r));
  assert.equal(next.ms, 40);
});

/**
 * The pids of the processes `parent` started to run this test file (Linux's /proc): only that runner's,
 * since the suite around this test may run the same file meanwhile.
 */
function processesRunning(file: string, parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(file)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

test('a Node that fails while files run stops the run at once, whichever missing Node the next file needs, and the running files stop with it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-node-lts-'));
  const node24 = join(dir, 'node-24');
  const node22 = join(dir, 'node-22');
  // The agent's file (longest, first in line) waits on Node 22, still building; the PostgreSQL one on
  // Node 24, which fails while the SQLite one runs.
  const running = 'packages/server/test/reconciler.test.ts';
  const run = spawn(
    process.execPath,
    ['scripts/run-tests.mjs', 'telegram-senders.test.ts', 'server/test/reconciler.test.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TEST_STORES: 'sqlite,postgres',
        // Never reached: the PostgreSQL file waits for its Node, which never comes.
        BERTH_TEST_DATABASE_URL: `postgres://nobody@127.0.0.1:${REFUSED_PORT}/none`,
        TEST_NODE_POSTGRES: node24,
        TEST_NODE_AGENT: node22,
        TEST_CONCURRENCY: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  run.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((r) => run.on('exit', (code) => r(code)));
  let filePids: number[] = [];
  try {
    await until('the SQLite file running', () => processesRunning(running, run.pid!).length > 0, 60_000);
    filePids = processesRunning(running, run.pid!);
    writeFileSync(`${node24}.failed`, 'scripts/node-lts.sh 24 failed (exit 1): its output says why\n');
    const code = await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000, 'still running').unref())]);
    assert.equal(code, 2, stderr);
    assert.match(stderr, /node-24 will not appear: scripts\/node-lts\.sh 24 failed/);
    // The file had many seconds left to run; it goes with the run (looked up by pid: a file left
    // running would now be another process's child).
    await until('the running file stopped with the run', () => filePids.every((pid) => !alive(pid)), 3_000);
  } finally {
    run.kill('SIGKILL');
    for (const pid of filePids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
});

function alive(pid: number) {
  try {
    // A zombie (exited, not yet reaped) counts as gone.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

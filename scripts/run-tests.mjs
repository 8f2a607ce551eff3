#!/usr/bin/env node
// Runs every *.test.ts file under packages/*/test, each in its own node process (node's own test
// runner, through tsx, with the `berth-source` export condition so workspace packages resolve to
// their TypeScript), on one or both stores, several files at a time, longest first.
//
//   node scripts/run-tests.mjs [substring …]
//   TEST_STORES=sqlite | postgres | sqlite,postgres   (default: postgres when BERTH_TEST_DATABASE_URL
//                                                      is set, else sqlite)
//   TEST_CONCURRENCY=N                                 files at once (default 2)
//   TEST_FILE_TIMEOUT_SECONDS=S                        a file still running after S fails by name
//   TEST_NODE_POSTGRES=/path/to/node                   the Node the PostgreSQL files run on (CI: Node
//                                                      24 LTS from scripts/node-lts.sh), first on PATH
//                                                      for what they spawn; until it exists, the
//                                                      other files run
//   TEST_NODE_AGENT=/path/to/node                      the same for the agent's own files
//                                                      (packages/agent/test)
//   TEST_NODE_SQLITE=/path/to/node                     the same for the other SQLite files (CI: Node
//                                                      22 LTS; the agent's own files then run on the
//                                                      machine's Node 20)
//
// Each file's process loads TypeBox and Kysely as one bundled module each (scripts/test-deps/: most
// of a process's start-up on Node 20 was tsx's hooks resolving their hundreds of files).
// On PostgreSQL only the files that reach the store run (scripts/test-plan.mjs says which): the
// others never open a database, so a second pass would prove nothing the SQLite pass did not.
// Each file's output is printed whole when it ends, so files running side by side never interleave;
// the end of the run lists every file's time, the 10 slowest, and a closing count.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { planTests } from './test-plan.mjs';
import { cpuMeter, hasWork, nextIndex, recordedTime, runShare, waits } from './test-schedule.mjs';
import { buildTestDeps } from './test-deps/build.mjs';
import { failingTests, failuresSoFar, parseCounts, reporterArgs } from './test-output.mjs';
import { fileTmpDir, removeTmpDir } from './file-tmpdir.mjs';

const DURATIONS = 'node_modules/.cache/berth/test-durations.json';
const COMPILE_CACHE = realpathSync('.') + '/node_modules/.cache/berth/compile-cache';
// A fresh clone (CI) has no times of its own yet: these, from a full run, order its first run.
const COMMITTED_DURATIONS = 'scripts/test-durations.json';
const TEST_DEPS_HOOKS = pathToFileURL(`${realpathSync('.')}/scripts/test-deps/register.mjs`).href;
/** The files' processes running now (each its own group): stopped with the run if it stops early. */
const running = new Set();
/** Files started so far: names each one's TAP file. */
let filesStarted = 0;
/** Where the files' TAP goes (runFile): removed when the run ends, however it ends. */
const TAP_DIR = mkdtempSync(join(tmpdir(), 'berth-tap-'));
process.on('exit', () => rmSync(TAP_DIR, { recursive: true, force: true }));
// Interrupted (Ctrl-C, CI's timeout): the files' process groups go with the run, as on a failure.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => fail(`stopped by ${signal}`));

const stores = (process.env.TEST_STORES ?? (process.env.BERTH_TEST_DATABASE_URL ? 'postgres' : 'sqlite'))
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const s of stores) {
  if (s !== 'sqlite' && s !== 'postgres') fail(`TEST_STORES: "${s}" is neither sqlite nor postgres`);
}
if (stores.includes('postgres') && !process.env.BERTH_TEST_DATABASE_URL) {
  fail('TEST_STORES names postgres but BERTH_TEST_DATABASE_URL is not set: run under scripts/with-postgres.sh');
}
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2) || 1);
// A file that never ends (a test or hook awaiting a promise that never settles) fails by name after
// this long and the run goes on; without it a CI run was once cut off at 90 minutes with nothing
// saying which file hung. The longest file, the crash test's 100 runs, took 149–285 s in CI.
const timeoutMs = Number(process.env.TEST_FILE_TIMEOUT_SECONDS ?? 600) * 1000;
/** A file still running this long after its last test is listed at the end (a leak to find). */
const LINGER_MS = 2000;

// The binaries the tests spawn (agent host, CLI) run the built JavaScript: bring dist/ up to date.
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
await buildTestDeps();

const filter = process.argv.slice(2);
const jobs = planTests({ stores, filter });
if (!jobs.length) fail('no test files matched');
// The whole suite also type-checks what the build does not compile (tests, benches, scripts, the
// dashboard): one job among the files, so its minute of CPU overlaps their waits.
if (!filter.length) {
  for (const project of ['tsconfig.json', 'packages/dashboard/tsconfig.json']) {
    jobs.push({
      file: `typecheck ${project}`,
      store: 'types',
      bytes: Number.POSITIVE_INFINITY,
      command: ['node_modules/typescript/bin/tsc', '-p', project],
    });
  }
}

// Longest first (times from the last run on this machine, else from scripts/test-durations.json, else
// a file's size stands in), so the run does not end with one long file running alone. The files
// that mostly wait get a lane of their own beside the others (scripts/test-schedule.mjs).
const known = { ...readJson(COMMITTED_DURATIONS), ...readJson(DURATIONS) };
const timeOf = (job) => recordedTime(known[key(job)]);
const expected = (job) => timeOf(job)?.ms ?? job.bytes / 100;
const share = runShare(Object.values(known).map(recordedTime));
const waiting = (job) => waits(timeOf(job), share);
jobs.sort((a, b) => expected(b) - expected(a));

for (const [label, node] of new Map(jobs.map((j) => [nodeLabel(j), nodeFor(j)]))) {
  const version = existsSync(node)
    ? spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()
    : `(${node}: its files start once it is there)`;
  console.log(`${label}: Node ${version}`);
}
const waiters = jobs.filter(waiting).length;
const lanes = Array.from({ length: Math.min(concurrency, jobs.length) }, () => 'computing');
if (waiters && concurrency > 1) lanes.push('waiting');
const computingLanes = lanes.filter((l) => l === 'computing').length;
console.log(
  `running ${jobs.length} test files (${stores.map((s) => `${s}: ${jobs.filter((j) => j.store === s).length}`).join(', ')}), ${computingLanes} at a time` +
    (lanes.length > computingLanes ? `, and the ${waiters} that mostly wait in a lane of their own beside them` : ''),
);
const started = Date.now();
// CI puts Node 24 and 22 in place beside the tests (scripts/node-lts.sh), which says so beside the
// link when it fails; a Node that neither appears nor fails within this long is given up on.
const nodeDeadline = started + 45 * 60_000;
const results = [];
const pending = [...jobs];
const cpuAtStart = childrenCpuMs();
const cpuOfFiles = cpuMeter(childrenCpuMs);
await Promise.all(lanes.map(worker));

async function worker(lane) {
  for (;;) {
    const job = await nextJob(lane);
    if (!job) return;
    const result = await runFile(job);
    results.push(result);
    const mark = result.ok ? '✔' : '✖';
    process.stdout.write(
      `\n── ${mark} ${job.file} [${job.store}] ${(result.ms / 1000).toFixed(1)} s ${result.timedOut ? '(timed out) ' : ''}──\n${result.output}`,
    );
  }
}

/**
 * The longest job left for this lane whose Node is there. TEST_NODE_POSTGRES may name a Node still
 * being put in place (CI makes Node 24 ready while the SQLite files run): its files wait, the others
 * go first.
 */
async function nextJob(lane) {
  const how = { lane, waiting, ready: (j) => existsSync(nodeFor(j)) };
  for (;;) {
    if (!hasWork(pending, how)) return undefined;
    const i = nextIndex(pending, how);
    if (i >= 0) return pending.splice(i, 1)[0];
    // Every Node still missing is checked: the one the next file needs may wait on another's build.
    const missing = [...new Set(pending.map(nodeFor))].filter((n) => !existsSync(n));
    const failed = missing.find((n) => existsSync(`${n}.failed`));
    if (failed) fail(`${failed} will not appear: ${readFileSync(`${failed}.failed`, 'utf8').trim()}`);
    if (Date.now() > nodeDeadline) fail(`${missing.join(', ')} did not appear within 45 minutes`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

function runFile(job) {
  // TELEGRAM_BURST_MS=0: a test's lone Telegram message is answered at once, not after the 1.5 s an
  // assistant waits for a user's further words (hundreds of such waits were a good part of the
  // suite's time). The files that test the wait unset it (telegram-bursts.test.ts).
  // NODE_COMPILE_CACHE: Node 22 and 24 keep V8's compiled code of each module (keyed by its source),
  // so the hundreds of processes the files start stop compiling the same modules (~0.15 s of CPU
  // each on Node 24); Node 20 ignores it.
  const env = { TELEGRAM_BURST_MS: '0', NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, NODE_ENV: 'test' };
  if (job.store === 'sqlite') delete env.BERTH_TEST_DATABASE_URL;
  const tmp = fileTmpDir();
  env.TMPDIR = tmp;
  const node = nodeFor(job);
  if (node !== process.execPath) env.PATH = `${dirname(realpathSync(node))}:${env.PATH ?? ''}`;
  const t0 = Date.now();
  // The spec reporter prints a failure's error only in its closing summary, which a file that hangs
  // never reaches: TAP, written beside it, has each error as it happens (printed on a timeout).
  const tap = join(TAP_DIR, `${++filesStarted}.tap`);
  return new Promise((resolve) => {
    // Its own process group, so a file that times out is stopped with every server it started.
    const args = job.command ?? [
      '--conditions=berth-source',
      '--import',
      'tsx',
      // TypeBox and Kysely as one module each: most of loading the code through tsx's hooks (test-deps/).
      '--import',
      TEST_DEPS_HOOKS,
      ...reporterArgs(tap),
      job.file,
    ];
    const child = spawn(node, args, {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks = [];
    // When the file's last test ended (its spec line), to tell how long the process lived on after it.
    let lastResultAt = t0;
    let summarised = false;
    child.stdout.on('data', (c) => {
      chunks.push(c);
      if (summarised) return;
      const text = c.toString('utf8');
      if (/^[✔✖﹣] /mu.test(text)) lastResultAt = Date.now();
      if (/^ℹ tests \d+$/m.test(text)) summarised = true;
    });
    child.stderr.on('data', (c) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    running.add(child.pid);
    let cpu = { ms: Number.NaN };
    // Reaped by now: its CPU (and that of the processes it waited for) is in this process's children's
    // total (unknown when reaped with another file: test-schedule.mjs's cpuMeter).
    child.on('exit', () => {
      cpu = cpuOfFiles.exited();
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      // What the file left behind (a server a failed test never closed) goes with it, and so do
      // the temporary folders its tests did not remove.
      killGroup(child.pid);
      removeTmpDir(tmp);
      const output = Buffer.concat(chunks).toString('utf8');
      // A command (the typecheck) counts as one test, passed when it exits 0.
      const counts = job.command ? commandCounts(code === 0) : parseCounts(output);
      resolve({
        job,
        ms: Date.now() - t0,
        lingeredMs: job.command ? 0 : Date.now() - lastResultAt,
        // Read when used: a reading shared with a file reaped in the same turn turns NaN after this.
        get cpuMs() {
          return cpu.ms;
        },
        ok: code === 0 && !timedOut && counts.fail === 0,
        timedOut,
        code: code ?? signal,
        output: timedOut
          ? `${output}\nthe file was still running after ${timeoutMs / 1000} s and was stopped\n${failuresSoFar(tap)}`
          : output,
        counts,
      });
      rmSync(tap, { force: true });
    });
  });
}

/** user + system CPU of the reaped children so far, from /proc (Linux); undefined elsewhere. */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime: fields 16 and 17 of stat(5), 14 and 15 after the name; in clock ticks (100/s).
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function commandCounts(ok) {
  return { tests: 1, pass: ok ? 1 : 0, fail: ok ? 0 : 1, skipped: 0, cancelled: 0 };
}

const wall = Date.now() - started;
const durations = { ...known };
for (const r of results) durations[key(r.job)] = { ms: r.ms, ...cpuOf(r) };
/** A file's CPU as measured, else (a shared reading) at the share of its wall time it had last time. */
function cpuOf(r) {
  if (Number.isFinite(r.cpuMs)) return { cpuMs: r.cpuMs };
  const last = timeOf(r.job);
  return last?.cpuMs !== undefined && last.ms > 0 ? { cpuMs: Math.round((last.cpuMs / last.ms) * r.ms) } : {};
}
try {
  mkdirSync(dirname(DURATIONS), { recursive: true });
  writeFileSync(DURATIONS, JSON.stringify(durations, null, 1));
} catch {
  // a read-only checkout still gets its results
}

const total = (k) => results.reduce((s, r) => s + r.counts[k], 0);
const failed = results.filter((r) => !r.ok);
const byTime = [...results].sort((a, b) => b.ms - a.ms);
// Wall time and CPU (the file's process and what it waited for): a file slow on the wall but light
// on CPU waits (timers, processes); one heavy on CPU slows the files beside it.
const row = (r) =>
  `${(r.ms / 1000).toFixed(1).padStart(7)} ${Number.isFinite(r.cpuMs) ? (r.cpuMs / 1000).toFixed(1).padStart(6) : '     -'}  ${r.job.store.padEnd(8)} ${r.job.file}`;
console.log('\n== time per file (seconds: wall, CPU)');
for (const r of byTime) console.log(row(r));
console.log('\n== the 10 slowest files (seconds: wall, CPU)');
for (const r of byTime.slice(0, 10)) console.log(row(r));
console.log('\n== the 10 heaviest on CPU (seconds: wall, CPU)');
for (const r of [...results].sort((a, b) => (b.cpuMs || 0) - (a.cpuMs || 0)).slice(0, 10)) console.log(row(r));
// A file whose process outlives its last test by seconds left a timer, a child or a connection open:
// the time is CI's, and the cause is a leak to find (a stopped host's grace timer, an app's
// background compile that outlived it).
const lingering = results.filter((r) => r.lingeredMs > LINGER_MS).sort((a, b) => b.lingeredMs - a.lingeredMs);
if (lingering.length) {
  console.log(`\n== files that lived on more than ${LINGER_MS / 1000} s after their last test (seconds)`);
  for (const r of lingering)
    console.log(`  ${(r.lingeredMs / 1000).toFixed(1).padStart(5)}  ${r.job.store.padEnd(8)} ${r.job.file}`);
}
const busy = results.reduce((s, r) => s + r.ms, 0);
const cpu = childrenCpuMs() - cpuAtStart;
console.log(
  `\n${results.length} files in ${(wall / 1000).toFixed(0)} s (${(busy / 1000).toFixed(0)} s of file time, ${(cpu / 1000).toFixed(0)} s of CPU, ${lanes.length} at a time)`,
);
for (const r of failed) {
  const why = r.timedOut ? 'timed out' : r.counts.fail ? `${r.counts.fail} failed` : `exit ${r.code}`;
  console.log(`✖ ${r.job.file} [${r.job.store}]: ${why}`);
  // CI shows only the end of the log: the failing tests and their errors are repeated here.
  console.log(failingTests(r.output));
}
// The closing line CI reads; a file that failed without a failing test (a crash at load, a
// timeout) counts as one failure so the line can never say 0 failed for a red run.
const failures = total('fail') + failed.filter((r) => r.counts.fail === 0).length;
console.log(`# tests ${total('tests')}\n# pass ${total('pass')}\n# fail ${failures}\n# skipped ${total('skipped')}`);
console.log(`${total('pass')} passed, ${failures} failed, ${total('skipped')} skipped`);
process.exit(failed.length ? 1 : 0);

function nodeFor(job) {
  if (job.store === 'postgres' && process.env.TEST_NODE_POSTGRES) return process.env.TEST_NODE_POSTGRES;
  if (isAgentFile(job)) return process.env.TEST_NODE_AGENT || process.execPath;
  if (job.store === 'sqlite' && process.env.TEST_NODE_SQLITE) return process.env.TEST_NODE_SQLITE;
  return process.execPath;
}
function isAgentFile(job) {
  return job.store !== 'types' && job.file.startsWith('packages/agent/');
}
function nodeLabel(job) {
  if (job.store === 'postgres' || job.store === 'types') return job.store;
  if (isAgentFile(job))
    return process.env.TEST_NODE_AGENT || process.env.TEST_NODE_SQLITE ? "the agent's files" : job.store;
  return job.store;
}
function key(job) {
  return `${job.store}:${job.file}`;
}
function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}
function fail(message) {
  console.error(`run-tests: ${message}`);
  // The files still running go too: each is its own process group, which would outlive the run.
  for (const pid of running) killGroup(pid);
  process.exit(2);
}

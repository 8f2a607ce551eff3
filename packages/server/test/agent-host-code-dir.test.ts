// Run as root, the control plane starts its agent host as another uid (AGENT_HOST_UID). A checkout
// in a directory that uid cannot enter (`mktemp -d` makes 0700 ones, /root is 0700) started no
// host, and the error said only Node's version line. Now the start fails before spawning, naming
// the directory and what to change, and changes nothing itself (uid-access.ts says why).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { blockedFor } from '../src/workers/uid-access.js';

const AGENT = resolve(dirname(createRequire(import.meta.url).resolve('@berth/agent')), '..');
const ROOT = resolve(AGENT, '../..');
const OTHER = 64999;

/**
 * A host as root runs it, as OTHER, from a copy of the agent package (its program and build) in
 * `app` (a checkout's or a release's directory), its dependencies where a checkout keeps them
 * (the workspace's node_modules, linked).
 */
function hostFrom(app: string, dataDir: string) {
  const agent = join(app, 'packages/agent');
  mkdirSync(agent, { recursive: true });
  for (const part of ['package.json', 'bin', 'dist']) cpSync(join(AGENT, part), join(agent, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
  return new LocalAgentHost({
    dataDir,
    logLevel: 'warn',
    log: pino({ level: 'silent' }) as never,
    logSink: () => {},
    runAsUid: OTHER,
    agentBin: join(agent, 'bin/berth-agent.js'),
  });
}

test('a uid reaches a file only through directories whose bits for it allow a search, and a file it may read', () => {
  const top = mkdtempSync(join(tmpdir(), 'berth-uid-access-'));
  try {
    const file = join(top, 'a/b/program.js');
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    writeFileSync(file, '', { mode: 0o644 });
    assert.equal(statSync(top).mode & 0o777, 0o700);
    assert.deepEqual(blockedFor(OTHER, file), { path: top, mode: 0o700 });
    chmodSync(top, 0o701);
    assert.equal(blockedFor(OTHER, file), undefined, 'search without read is enough');
    chmodSync(join(top, 'a'), 0o750);
    assert.deepEqual(blockedFor(OTHER, file), { path: join(top, 'a'), mode: 0o750 });
    chmodSync(join(top, 'a'), 0o755);
    chmodSync(file, 0o640);
    assert.deepEqual(blockedFor(OTHER, file), { path: file, mode: 0o640 });
    // The owner's bits apply to the owner, whatever others may do.
    assert.equal(blockedFor(process.getuid!(), file), undefined);
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

test('run as root from a checkout in a 0700 directory, the host start fails saying which directory to open, and opens nothing', {
  skip: process.getuid?.() !== 0 && 'only a control plane running as root runs its host as another uid',
}, async () => {
  // A checkout in a directory only root can enter.
  const checkout = mkdtempSync(join(tmpdir(), 'berth-checkout-'));
  const data = mkdtempSync(join(tmpdir(), 'berth-code-dir-data-'));
  const host = hostFrom(checkout, join(data, 'agents'));
  try {
    await assert.rejects(host.start(), (err: Error) => {
      assert.match(
        err.message,
        /runs as uid 64999 \(AGENT_HOST_UID\), which cannot enter \S+berth-checkout-\w+ \(mode 0700\)/,
      );
      assert.match(err.message, /chmod o\+x \S+berth-checkout-\w+\), or install Berth where every user can read it/);
      return true;
    });
    assert.equal(host.pid, undefined, 'nothing was spawned');
    assert.equal(statSync(checkout).mode & 0o777, 0o700, 'the directory was left as it was');
    // Done as the error says, the same host starts.
    chmodSync(checkout, 0o701);
    await host.start();
    assert.ok(host.pid, 'the host runs');
  } finally {
    await host.stop();
    rmSync(checkout, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

test('code and data in one 0700 release directory: opening the way to the data opens the way to the code, and the host starts', {
  skip: process.getuid?.() !== 0 && 'only a control plane running as root runs its host as another uid',
}, async () => {
  // As scripts/production-smoke.sh installs a release: the app and DATA_DIR side by side in a
  // `mktemp -d` directory. The data directory's parents were opened before; the code's check
  // comes after that, so this start is not refused.
  const release = mkdtempSync(join(tmpdir(), 'berth-release-'));
  const host = hostFrom(join(release, 'app'), join(release, 'data/agents'));
  try {
    await host.start();
    assert.ok(host.pid, 'the host runs');
    assert.equal(statSync(release).mode & 0o777, 0o701);
  } finally {
    await host.stop();
    rmSync(release, { recursive: true, force: true });
  }
});

test('a directory the host uid owns is entered by the owner bits', {
  skip: process.getuid?.() !== 0 && 'chown needs root',
}, () => {
  const top = mkdtempSync(join(tmpdir(), 'berth-uid-owner-'));
  try {
    writeFileSync(join(top, 'f'), '', { mode: 0o600 });
    chownSync(top, OTHER, OTHER);
    chownSync(join(top, 'f'), OTHER, OTHER);
    assert.equal(blockedFor(OTHER, join(top, 'f')), undefined);
    assert.deepEqual(blockedFor(OTHER + 1, join(top, 'f')), { path: top, mode: 0o700 });
  } finally {
    rmSync(top, { recursive: true, force: true });
  }
});

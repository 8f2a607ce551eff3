// Run as root, the control plane starts its agent host as another uid (AGENT_HOST_UID). A checkout
// in a directory that uid cannot enter (`mktemp -d` makes 0700 ones, /root is 0700) started no
// host: Node, as that uid, could not find the agent's program. The control plane now makes the
// directories above the code traversable, as it does for the data directory, and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pino from 'pino';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';

const AGENT = resolve(dirname(createRequire(import.meta.url).resolve('@berth/agent')), '..');
const ROOT = resolve(AGENT, '../..');

test('run as root from a checkout in a 0700 directory, the agent host starts, and the directory is said', {
  skip: process.getuid?.() !== 0 && 'only a control plane running as root runs its host as another uid',
}, async () => {
  // The agent package as a checkout has it (its program and build), in a directory only root can
  // enter, its dependencies where a checkout keeps them (the workspace's node_modules, linked).
  const checkout = mkdtempSync(join(tmpdir(), 'berth-checkout-'));
  const data = mkdtempSync(join(tmpdir(), 'berth-code-dir-data-'));
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
  const agent = join(checkout, 'packages/agent');
  mkdirSync(agent, { recursive: true });
  for (const part of ['package.json', 'bin', 'dist']) cpSync(join(AGENT, part), join(agent, part), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(checkout, 'node_modules'));
  assert.equal(statSync(checkout).mode & 0o777, 0o700);
  const host = new LocalAgentHost({
    dataDir: join(data, 'agents'),
    logLevel: 'warn',
    log: log as never,
    logSink: () => {},
    runAsUid: 64999,
    agentBin: join(agent, 'bin/berth-agent.js'),
  });
  try {
    await host.start();
    assert.ok(host.pid, 'the host runs');
    assert.equal(statSync(checkout).mode & 0o777, 0o701, 'traversable by others, not listable');
    const said = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'made traversable for the agent host uid');
    assert.ok(
      said.some((l) => l.dir === checkout),
      `said: ${JSON.stringify(said)}`,
    );
  } finally {
    await host.stop();
    rmSync(checkout, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
});

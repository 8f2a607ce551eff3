// `npm start` spawns the local agent host once the API listens (runtime.ts, startAfter): a call to
// the host made before that waits for the start instead of failing with "not running".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';

test('a call made before the deferred start waits for it, and nothing is spawned before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-host-after-'));
  const host = new LocalAgentHost({
    dataDir: join(dir, 'agents'),
    stateDir: dir,
    logLevel: 'warn',
    log: pino({ level: 'silent' }),
    logSink: () => {},
  });
  try {
    let listening!: () => void;
    const started = host.startAfter(new Promise<void>((r) => (listening = r)));
    const listed = host.listWorkers();
    // Waits on the wall clock: a host spawned too early would be spawned within this; nothing
    // happens to wait for when it (rightly) is not.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(host.pid, undefined, 'spawned before the API listened');
    listening();
    assert.deepEqual((await listed).names, []);
    await started;
    assert.ok(host.pid);
  } finally {
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

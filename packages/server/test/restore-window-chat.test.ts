// Issue 57, finding 2: after a restart of the control plane, an active assistant's stored worker
// URL points at the host of the life before (the local agent host's socket is new each start)
// until the restoring pass creates its worker again. A chat in that window is told "not ready,
// retry" (409 ASSISTANT_NOT_READY with Retry-After), not 502 "worker could not be reached".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createApiKey, createLogger, createRuntime, type Runtime } from '../src/index.js';
import { activeDeployment } from './helpers/api.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { until } from './helpers/until.js';
import { freshConfig } from './helpers/fresh-config.js';

const chat = { model: 'assistant-agent', messages: [{ role: 'user', content: 'are you there?' }] };

test('a chat while the workers are restored after a restart is ASSISTANT_NOT_READY with Retry-After, not BAD_GATEWAY', async () => {
  const { config, dataDir, db } = await freshConfig('berth-test-', { PUBLIC_BASE_URL: 'http://berth.test' });
  const logger = createLogger('warn');
  const options = { logger, runner: { pollMs: 50, leaseMs: 5000 } };
  // The first life: one active assistant. Its workers' host listens nowhere once this life ends
  // (FakeWorkers' default URL is a closed port), as the old socket of a local host.
  let rt: Runtime = await createRuntime(config, { workers: new FakeWorkers(), ...options });
  // Released in `finally` too: the pass waiting on the gate would keep close() waiting for ever.
  let release = () => {};
  try {
    const { key } = await createApiKey(
      { users: rt.services.users, secrets: rt.secrets, now: () => new Date() },
      'restore-window@example.com',
    );
    const h = { runtime: rt, inject: rt.app.inject.bind(rt.app) } as Parameters<typeof activeDeployment>[0];
    const id = await activeDeployment(h, key);
    await rt.close();

    // The second life: the restoring pass is held while it creates the worker again.
    const workers = new FakeWorkers();
    workers.gate = new Promise<void>((r) => {
      release = r;
    });
    rt = await createRuntime(config, { workers, ...options });
    await until('the pass to be creating workers', () => workers.createCalls > 0 || undefined, 15_000, 25);
    const ask = () =>
      rt.app.inject({
        method: 'POST',
        url: `/api/v1/assistants/${id}/chat/completions`,
        headers: { 'x-api-key': key },
        payload: chat,
      });
    const during = await ask();
    assert.equal(during.statusCode, 409, during.body);
    assert.equal(during.json().error.code, 'ASSISTANT_NOT_READY');
    assert.match(during.json().error.message, /being restored/);
    assert.equal(during.headers['retry-after'], '2');
    assert.equal(during.headers['x-should-retry'], undefined);

    // Once the pass is over, a worker that cannot be reached is the gateway failure it is.
    release();
    await rt.restored;
    const after = await ask();
    assert.equal(after.statusCode, 502, after.body);
    assert.equal(after.json().error.code, 'BAD_GATEWAY');
  } finally {
    release();
    await rt.close();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

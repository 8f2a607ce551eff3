// A real agent host for a test file: its session store in a temporary folder, the admin API on a
// loopback port and a model provider fake, started before the file's first test and closed after
// its last.
import { after, before } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeModelProvider } from '@berth/testkit';
import { AgentHost } from '../../src/runtime/host.js';
import { SessionStore } from '../../src/storage/sessions.js';
import { hostApp } from '../../src/runtime/server.js';
import { captureLogs } from './serve.js';
import { listenLoopback } from './bed.js';

export function hostBed(adminToken: string, folderPrefix: string, opts: Parameters<typeof hostApp>[3] = {}) {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), folderPrefix)));
  const { logger } = captureLogs();
  const host = new AgentHost(store, logger);
  const app = hostApp(host, logger, adminToken, opts);
  const bed = { provider: new FakeModelProvider(), store, host, app, url: '' };
  before(async () => {
    await bed.provider.start();
    bed.url = await listenLoopback(app);
  });
  after(async () => {
    await app.close();
    await host.close();
    store.close();
    await bed.provider.stop();
  });
  return bed;
}

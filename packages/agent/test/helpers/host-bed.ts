// A real agent host for a test file: its session store in a temporary folder, the admin API on a
// loopback port and a model provider fake, started before the file's first test and closed after
// its last.
import { after, before } from 'node:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { AgentHost } from '../../src/runtime/host.js';
import { SessionStore } from '../../src/storage/sessions.js';
import { hostApp } from '../../src/runtime/server.js';
import { captureLogs, suiteBurstMs } from './serve.js';
import { listenLoopback } from './bed.js';

type HostOptions = Parameters<typeof hostApp>[3];

/**
 * `opts` may be a set-up that gives them, run in this one `before` before the admin API starts (on
 * Node 20 top-level before hooks start at once: a hook of its own could not be waited for).
 */
export function hostBed(
  adminToken: string,
  folderPrefix: string,
  opts: HostOptions | (() => Promise<HostOptions>) = {},
) {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), folderPrefix)));
  const { logger, lines } = captureLogs();
  const host = new AgentHost(store, logger);
  let app: ReturnType<typeof hostApp> | undefined;
  /** `logs`: the host's log lines. */
  const bed = { provider: new FakeModelProvider(), store, host, url: '', logs: lines };
  before(async () => {
    await bed.provider.start();
    app = hostApp(host, logger, adminToken, {
      telegramBurstMs: suiteBurstMs(),
      ...(typeof opts === 'function' ? await opts() : opts),
    });
    bed.url = await listenLoopback(app);
  });
  after(async () => {
    await app?.close();
    await host.close();
    store.close();
    await bed.provider.stop();
  });
  return bed;
}

/** hostBed with a FakeTelegram holding `bots`, the host's default Bot API root. */
export function telegramHostBed(adminToken: string, folderPrefix: string, bots: string[], opts: HostOptions = {}) {
  const tg = new FakeTelegram();
  const bed = hostBed(adminToken, folderPrefix, async () => {
    await tg.start();
    for (const token of bots) tg.addBot(token);
    return { defaultTelegramApiRoot: tg.url, ...opts };
  });
  after(async () => {
    await tg.stop();
  });
  return Object.assign(bed, { tg });
}

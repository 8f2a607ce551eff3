// Boots a real control plane (real store, real Fastify) in-process for a test, with a fake
// workers backend and the log lines captured so tests can read them.
import { rmSync } from 'node:fs';
import { createApiKey, createRuntime, type Runtime } from '../../src/index.js';
import { freshConfig } from './fresh-config.js';
import { capturingLogger } from './logs.js';
import { FakeWorkers } from './fake-workers.js';
import type { Overrides } from '../../src/runtime.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { close as closeServer, listen } from '@berth/testkit';
import { orStop, stopAfter } from './stop-all.js';

export const BOT_TOKEN = '7123456789:AAFakeTokenForTests_abcdefghijklmnopqrs';
let bots = 0;
/**
 * A bot token of its own for each activation: one token runs one assistant (409 BOT_TOKEN_IN_USE),
 * so tests that activate many deployments need as many bots.
 */
export function uniqueBotToken(): string {
  return `71234${String(++bots).padStart(5, '0')}:AAFakeTokenForTests_${process.pid}_abcdefghijklmnopqrs`;
}
export const MODEL_KEY = 'sk-test-model-key-0123456789abcdef';

export interface Harness {
  runtime: Runtime;
  workers: FakeWorkers;
  logs: string[];
  dataDir: string;
  /** The PostgreSQL database of this run (undefined on SQLite). */
  databaseUrl: string | undefined;
  inject: Runtime['app']['inject'];
  key(email?: string): Promise<string>;
  close(): Promise<void>;
  /** Whole-table snapshot, to prove a rejected request changed nothing. */
  snapshot(): Promise<unknown[]>;
}

export async function startHarness(env: Record<string, string> = {}, overrides: Overrides = {}): Promise<Harness> {
  const { config, dataDir, db } = await freshConfig('berth-test-', {
    PUBLIC_BASE_URL: 'http://berth.test',
    LOG_LEVEL: 'info',
    // Meta is never called from a test: a closed port (a test with FakeWhatsApp sets its own).
    WHATSAPP_API_ROOT: 'http://127.0.0.1:9/v21.0',
    // Nor Discord (a test with FakeDiscord sets its own).
    DISCORD_API_ROOT: 'http://127.0.0.1:9/api',
    ...env,
  });
  const { lines: logs, logger } = capturingLogger('debug');
  const workers = new FakeWorkers();
  const runtime = await createRuntime(config, { workers, logger, runner: { pollMs: 50, leaseMs: 5000 }, ...overrides });
  let n = 0;
  return {
    runtime,
    workers,
    logs,
    dataDir,
    databaseUrl: db.url,
    inject: runtime.app.inject.bind(runtime.app),
    async key(email) {
      const res = await createApiKey(
        { users: runtime.services.users, secrets: runtime.secrets, now: () => new Date() },
        email ?? `user${++n}-${Date.now()}@example.com`,
      );
      return res.key;
    },
    async snapshot() {
      const db = runtime.store.db;
      return [
        await db.selectFrom('deployments').selectAll().orderBy('id').execute(),
        await db.selectFrom('users').selectAll().orderBy('id').execute(),
        // last_used_at is bookkeeping of any authenticated request, not a change the request made.
        await db
          .selectFrom('api_keys')
          .select(['id', 'user_id', 'organization_id', 'name', 'prefix', 'hash', 'created_at', 'revoked_at'])
          .orderBy('id')
          .execute(),
        await db.selectFrom('organizations').selectAll().orderBy('id').execute(),
        await db.selectFrom('memberships').selectAll().orderBy('organization_id').orderBy('user_id').execute(),
        await db.selectFrom('invitations').selectAll().orderBy('id').execute(),
        await db.selectFrom('sessions').select(['id', 'user_id', 'token_hash']).orderBy('id').execute(),
      ];
    },
    async close() {
      workers.releaseHeld();
      await runtime.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A harness that test `t` closes after it (its after hook): one line instead of a try/finally in each test. */
export async function harnessFor(t: TestContext, env: Record<string, string> = {}, overrides: Overrides = {}) {
  const h = await startHarness(env, overrides);
  stopAfter(t, () => h.close());
  return h;
}

/**
 * A harness listening on a real port whose deployments point at `worker` (a loopback stand-in for
 * the agent), with an API key: for tests that speak raw HTTP to the control plane.
 */
export async function startWithWorker(worker: Server) {
  const h = await startHarness();
  h.workers.urlBase = await listen(worker);
  await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (h.runtime.app.server.address() as AddressInfo).port;
  const key = await h.key();
  return {
    h,
    port,
    key,
    async close() {
      await h.close();
      await closeServer(worker);
    },
  };
}

/** A harness (`env`, `overrides`: startHarness's) and one user's API key: the start of most files that test the API in-process. */
export async function startHarnessWithKey(
  env: Record<string, string> = {},
  overrides: Overrides = {},
): Promise<{ h: Harness; key: string }> {
  const h = await startHarness(env, overrides);
  return orStop(
    () => h.close(),
    async () => ({ h, key: await h.key() }),
  );
}

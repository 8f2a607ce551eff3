// The control plane as its own process (`src/main.ts` under tsx), for tests that kill it with
// SIGKILL and start it again on the same data dir and database: the crash tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { catalogFor, MODEL_KEY } from './e2e.js';
import { createTestDatabase, databaseEnv, TEST_SECRETS_KEY } from './database.js';
import { createApiKey, createSecretBox, openStore, resolveSecretsKey } from '../../src/index.js';

const ROOT = resolve(import.meta.dirname, '../../../..');

export interface ControlPlaneProcess {
  child: ChildProcess;
  url: string;
  /** What it has written to stderr so far (the banner, among others). */
  stderr: () => string;
}

/** Spawns the control plane and resolves once it logs that it is ready (its address is in the line). */
export function startControlPlane(env: Record<string, string>): Promise<ControlPlaneProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'packages/server/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('control plane did not start')), 60_000);
    child.once('exit', (code) => fail(new Error(`control plane exited with ${code}`)));
    let stderr = '';
    child.stderr!.on('data', (d) => {
      stderr += d;
      process.stderr.write(d);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.includes('"msg":"berth control plane ready"')) return;
      clearTimeout(timer);
      ok({ child, url: JSON.parse(line).address, stderr: () => stderr });
    });
  });
}

/** The outside world a control-plane process runs against, a user's API key in its store, and the
 *  env to start it with; `close()` removes it all. */
export interface ProcessRig {
  tg: FakeTelegram;
  provider: FakeModelProvider;
  dataDir: string;
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  env: Record<string, string>;
  key: string;
  /** Starts a control plane on the rig's env. */
  start(): Promise<ControlPlaneProcess>;
  /**
   * As the rig's user on `cp`: buys a byok slot, pays for it and activates it as a Telegram
   * assistant `name` of `bot` on the fake model. The slot's id, and the activation's answer.
   */
  buyAndActivate(cp: ControlPlaneProcess, name: string, bot: string): Promise<{ id: string; activated: any }>;
  close(): Promise<void>;
}

export async function startProcessRig(opts: {
  email: string;
  tmpPrefix: string;
  env: Record<string, string>;
}): Promise<ProcessRig> {
  const tg = await new FakeTelegram().start();
  const provider = await new FakeModelProvider().start();
  const dataDir = mkdtempSync(join(tmpdir(), opts.tmpPrefix));
  const db = await createTestDatabase();
  const env = {
    PORT: '0',
    DATA_DIR: dataDir,
    SECRETS_KEY: TEST_SECRETS_KEY,
    MODEL_CATALOG: catalogFor(provider.url),
    TELEGRAM_API_ROOT: tg.url,
    LOG_LEVEL: 'info',
    ...opts.env,
    ...databaseEnv(db),
  };
  const store = await openStore({ databaseUrl: db.url, dataDir });
  const { key } = await createApiKey(
    {
      users: store.repos.users,
      secrets: createSecretBox(resolveSecretsKey(Buffer.from(TEST_SECRETS_KEY, 'base64'), dataDir)),
      now: () => new Date(),
    },
    opts.email,
  );
  await store.close();
  const close = async () => {
    await tg.stop();
    await provider.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const buyAndActivate: ProcessRig['buyAndActivate'] = async (cp, name, bot) => {
    const call = callAs(key, () => cp.url);
    const bought = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    if (!bought.data) throw new Error(`purchase refused: ${JSON.stringify(bought)}`);
    const { deploymentId, checkoutUrl } = bought.data as { deploymentId: string; checkoutUrl: string };
    await request(`${cp.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
    const activated = await call('POST', `/api/v1/assistants/${deploymentId}/activate`, {
      name,
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: bot,
      modelApiKey: MODEL_KEY,
    });
    return { id: deploymentId, activated };
  };
  return { tg, provider, dataDir, db, env, key, start: () => startControlPlane(env), buyAndActivate, close };
}

/** SIGTERM, then waits for the exit (at once when it has exited already, e.g. killed by a test). */
export async function stopControlPlane(cp: ControlPlaneProcess): Promise<void> {
  if (cp.child.exitCode !== null || cp.child.signalCode !== null) return;
  cp.child.kill('SIGTERM');
  await new Promise((r) => cp.child.once('exit', r));
}

/** A JSON call as the rig's user to whichever control plane `url()` names now (it changes on restart). */
export function callAs(key: string, url: () => string) {
  return async (method: string, path: string, body?: unknown) => {
    const r = await request(`${url()}${path}`, {
      method: method as 'GET',
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return r.body.json() as Promise<any>;
  };
}

/** Polls an assistant's status until it settles (active or failed) or `timeoutMs` passes; returns
 *  the last status read. */
export async function settledStatus(call: ReturnType<typeof callAs>, id: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let status = '';
  while (Date.now() < deadline) {
    status = (await call('GET', `/api/v1/assistants/${id}/status`)).data.status;
    if (status === 'active' || status === 'failed') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return status;
}

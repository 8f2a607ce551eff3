// The whole product on one machine: the control plane over real HTTP, the real agent host
// process it supervises, and loopback fakes of Telegram and the model provider.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { Webhook } from 'standardwebhooks';
import { FakeModelProvider, FakeTelegram, type FakeWhatsApp, type WhatsAppNumber } from '@berth/testkit';
import { createApiKey, createRuntime, showUser, type Runtime } from '../../src/index.js';
import type { Overrides } from '../../src/runtime.js';
import { freshConfig } from './fresh-config.js';
import { capturingLogger } from './logs.js';
import { writeCatalog } from './catalog.js';
import { type ApiAnswer, callApi } from './http-api.js';
import { orStop, stopAll } from './stop-all.js';
import { until } from './until.js';

export const MODEL_KEY = 'sk-test-model-key-0123456789abcdef';

/** USD per million tokens of the fake models: the ledger's figures follow from it. */
export const FAKE_PRICE = { prompt: 1, completion: 2 };

/** DESIGN §9.5: what the router charges to speak and to draw, when a test's catalog offers both. */
export const FAKE_MEDIA = {
  transcription: { model: 'whisper-1', pricePerMinute: 0.006 },
  speech: { model: 'gpt-4o-mini-tts', voice: 'alloy', pricePer1MChars: 15 },
  images: { model: 'gpt-image-1', pricePerImage: 0.04 },
};

/** `media`: the router transcribes, speaks and draws (FAKE_MEDIA); `fakeaiModels`: fakeai's models. */
export interface CatalogOptions {
  media?: boolean;
  fakeaiModels?: string[];
}

export function catalogFor(providerUrl: string, opts: CatalogOptions = {}): string {
  const { media = false, fakeaiModels = ['fake-model-1'] } = opts;
  return writeCatalog([
    { id: 'fakeai', baseUrl: providerUrl, models: fakeaiModels.map((id) => ({ id, pricing: FAKE_PRICE })) },
    {
      id: 'openrouter',
      baseUrl: providerUrl,
      models: [{ id: 'router/fake-model', pricing: FAKE_PRICE }],
      ...(media ? FAKE_MEDIA : {}),
    },
  ]);
}

export interface E2E {
  runtime: Runtime;
  url: string;
  key: string;
  tg: FakeTelegram;
  provider: FakeModelProvider;
  logs: string[];
  agentLogs: string[];
  dataDir: string;
  /** The PostgreSQL database of this run (undefined on SQLite), for a second process. */
  databaseUrl: string | undefined;
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiAnswer>;
  /** purchase → pay → activate; returns the deployment id (status: deploying). */
  activate(botToken: string, extra?: Record<string, unknown>): Promise<string>;
  waitForStatus(id: string, statuses: string[], timeoutMs?: number): Promise<any>;
  close(): Promise<void>;
}

/** `opts`: the model catalog's (catalogFor). */
export async function startE2E(
  env: Record<string, string> = {},
  overrides: Overrides = {},
  opts: CatalogOptions = {},
): Promise<E2E> {
  // What started is stopped, last first, when a later step fails: left running, it kept the test
  // file's process alive after its failure, and the whole suite waited on it (an agent host that
  // could not start, in CI). The error is the step's, not a stop's.
  const started: Array<() => unknown> = [];
  try {
    return await e2eOn(started, env, overrides, opts);
  } catch (err) {
    await stopAll(started.reverse()).catch(() => {});
    throw err;
  }
}

async function e2eOn(
  started: Array<() => unknown>,
  env: Record<string, string>,
  overrides: Overrides,
  catalog: CatalogOptions,
): Promise<E2E> {
  const tg = await new FakeTelegram().start();
  started.push(() => tg.stop());
  const provider = await new FakeModelProvider().start();
  started.push(() => provider.stop());
  const { config, dataDir, db } = await freshConfig('berth-e2e-', {
    MODEL_CATALOG: catalogFor(provider.url, catalog),
    TELEGRAM_API_ROOT: tg.url,
    MANAGED_PROVIDER_API_KEY: MODEL_KEY,
    DEPLOY_TIMEOUT_SECONDS: '15',
    LOG_LEVEL: 'info',
    // Meta is never called from a test: a closed port (a test with FakeWhatsApp sets its own).
    WHATSAPP_API_ROOT: 'http://127.0.0.1:9/v21.0',
    // Nor Discord (a test with FakeDiscord sets its own).
    DISCORD_API_ROOT: 'http://127.0.0.1:9/api',
    ...env,
  });
  started.push(() => rmSync(dataDir, { recursive: true, force: true }));
  started.push(() => db.drop());
  // debug: the secret scans must see every line the control plane can write, request lines too.
  const { lines: logs, logger } = capturingLogger('debug');
  const agentLogs: string[] = [];
  const runtime = await createRuntime(config, {
    logger,
    agentLogSink: (line) => agentLogs.push(line),
    runner: { pollMs: 100 },
    ...overrides,
  });
  started.push(() => runtime.close());
  // PORT: a test that must know its URL before start (PUBLIC_BASE_URL of checkout links) picks one.
  await runtime.app.listen({ port: env.PORT ? Number(env.PORT) : 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`;
  const { key } = await createApiKey(
    { users: runtime.services.users, secrets: runtime.secrets, now: () => new Date() },
    `e2e-${Date.now()}@example.com`,
  );
  const api: E2E['api'] = (method, path, body, headers = {}) => callApi(url, key, method, path, body, headers);
  const e2e: E2E = {
    runtime,
    url,
    key,
    tg,
    provider,
    logs,
    agentLogs,
    api,
    dataDir,
    databaseUrl: db.url,
    async activate(botToken, extra = {}) {
      const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
      if (bought.status !== 201) throw new Error(bought.text);
      const { deploymentId, checkoutUrl } = bought.json.data;
      await request(`${url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
      const res = await api('POST', `/api/v1/assistants/${deploymentId}/activate`, {
        name: 'E2E',
        modelProvider: 'fakeai',
        modelId: 'fake-model-1',
        messengerBotToken: botToken,
        modelApiKey: MODEL_KEY,
        ...extra,
      });
      if (res.status !== 200) throw new Error(res.text);
      return deploymentId;
    },
    async waitForStatus(id, statuses, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const res = await api('GET', `/api/v1/assistants/${id}/status`);
        if (statuses.includes(res.json?.data?.status)) return res.json.data;
        if (Date.now() > end) throw new Error(`status stayed ${res.text}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    // What started, last first (the list a failed start stops). Each is stopped even when one
    // before it failed: a server left open would keep the file's process alive until the runner's
    // timeout, and its failure would never be printed.
    async close() {
      await stopAll(started.reverse());
    },
  };
  return e2e;
}

/** Activates an assistant running `botToken` (a bot the fake Telegram now knows; `extra` adds to the
 *  activation's body) and waits up to `timeoutMs` for it to be active: a failed deploy fails the
 *  test at once. */
export async function activeBot(
  e: E2E,
  botToken: string,
  extra: Record<string, unknown> = {},
  timeoutMs?: number,
): Promise<string> {
  e.tg.addBot(botToken);
  const id = await e.activate(botToken, extra);
  const view = await e.waitForStatus(id, ['active', 'failed'], timeoutMs);
  assert.equal(view.status, 'active', view.statusMessage);
  return id;
}

/** A control plane whose one assistant runs `botToken` and is active: the start of the files
 *  that test what one running assistant does. */
export async function startWithActiveBot(
  botToken: string,
  catalog: CatalogOptions = {},
): Promise<{ e: E2E; id: string }> {
  const e = await startE2E({}, {}, catalog);
  return orStop(
    () => e.close(),
    async () => ({ e, id: await activeBot(e, botToken) }),
  );
}

/** The Standard Webhooks verifier for the callbacks of assistant `id`'s owner (the signing secret
 *  an operator reads with `berth users show`). */
export async function ownersWebhook(e: E2E, id: string): Promise<Webhook> {
  const d = await e.runtime.services.deployments.findById(id);
  const user = await e.runtime.services.users.findById(d!.userId);
  const { webhookSecret } = await showUser(
    { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
    user!.email,
  );
  return new Webhook(webhookSecret);
}

/** A channel of an assistant as its owner sees it (GET /api/v1/assistants/{id}/channels). */
export interface ChannelView {
  type: string;
  status: string;
  statusMessage: string;
}

/** Channel `type` (whatsapp, discord) of assistant `id`. */
export async function channelView(e: E2E, id: string, type: string): Promise<ChannelView> {
  const res = await e.api('GET', `/api/v1/assistants/${id}/channels`);
  return (res.json.data as ChannelView[]).find((c) => c.type === type)!;
}

/** Waits up to 15 s for channel `type` of assistant `id` to be failed (a revoked token); returns its view. */
export function channelFailed(e: E2E, id: string, type: string): Promise<ChannelView> {
  return until(
    'the channel to fail',
    async () => {
      const v = await channelView(e, id, type);
      return v.status === 'failed' ? v : undefined;
    },
    15_000,
  );
}

/** Puts WhatsApp number `n` on assistant `id` through the API, then subscribes the fake's webhook
 *  to the URL and verify token the answer gave, as an owner does in Meta's console. */
export async function attachWhatsApp(e: E2E, wa: FakeWhatsApp, id: string, n: WhatsAppNumber): Promise<ApiAnswer> {
  const res = await e.api('PUT', `/api/v1/assistants/${id}/channels/whatsapp`, {
    phoneNumberId: n.phoneNumberId,
    accessToken: n.accessToken,
    appSecret: n.appSecret,
  });
  assert.equal(res.status, 200, res.text);
  const { webhookUrl, verifyToken } = res.json.data.details;
  await wa.subscribe(n.phoneNumberId, `${e.url}${new URL(webhookUrl).pathname}`, verifyToken);
  return res;
}

import { mkdtempSync } from 'node:fs';
import { request } from 'undici';
import type { Speaker } from '../../src/model/media-out.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { FakeModelProvider, type FakeTelegram } from '@berth/testkit';
import { Assistant, type AssistantConfig as AgentConfig } from '../../src/runtime/assistant.js';
import { SessionStore, type SessionLimits } from '../../src/storage/sessions.js';
import { serveApp } from '../../src/runtime/server.js';
import { agentLogger } from '../../src/logger.js';
import { OpenAiCompatibleProvider } from '../../src/model/openai-compatible.js';

import { Scheduler } from '../../src/scheduler/scheduler.js';
import { fileClock } from '../../src/scheduler/test-clock.js';
import { ScheduleRepo } from '../../src/storage/schedules.js';
import type { DocumentReader } from '../../src/media/document-pool.js';
export const GATEWAY = 'gw-test-token-0123456789abcdef';

/**
 * The suite's TELEGRAM_BURST_MS (scripts/run-tests.mjs sets 0: a lone message is answered at once
 * instead of after the 1.5 s a user's further messages are waited for), as a host would pass it to
 * its bots. Tests of the wait itself (telegram-bursts.test.ts) unset it to keep the house default.
 */
export function suiteBurstMs(): number | undefined {
  const v = process.env.TELEGRAM_BURST_MS?.trim();
  return v ? Number(v) : undefined;
}
export const MODEL_KEY = 'sk-test-model-key-0123456789abcdef';

/** The model the tests' assistants use: the fake provider's at `baseUrl`, with `more` (capabilities, …). */
export const fakeModel = (baseUrl: string, more: Partial<AgentConfig['model']> = {}): AgentConfig['model'] => ({
  provider: 'fakeai',
  baseUrl,
  modelId: 'fake-model-1',
  apiKey: MODEL_KEY,
  ...more,
});

export function captureLogs() {
  const lines: string[] = [];
  const logger = agentLogger(
    'debug',
    new Writable({
      write(c, _e, cb) {
        lines.push(String(c));
        cb();
      },
    }),
  );
  return { lines, logger };
}

export interface ServeOptions {
  provider?: FakeModelProvider;
  telegram?: FakeTelegram;
  botToken?: string;
  config?: Partial<AgentConfig>;
  dataDir?: string;
  keepaliveMs?: number;
  providerTimeoutMs?: number;
  sessionLimits?: SessionLimits;
  metricsToken?: string;
  /** A stand-in for the host's document pool (a test that holds documents until it lets them go). */
  documents?: DocumentReader;
  /** A stand-in for the gateway's /audio/speech (DESIGN §9.5), which picks the catalog's model and voice. */
  speaker?: Speaker;
  /** The host's clock file (BERTH_TEST_CLOCK_FILE, scheduler/test-clock.ts): the scheduler claims by it. */
  clockFile?: string;
}

export type Served = Awaited<ReturnType<typeof startServe>>;

export async function startServe(opts: ServeOptions = {}) {
  const provider = opts.provider ?? (await new FakeModelProvider().start());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'berth-agent-'));
  const store = new SessionStore(dataDir, opts.sessionLimits);
  const { lines, logger } = captureLogs();
  const config: AgentConfig = {
    name: 'test-agent',
    gatewayToken: GATEWAY,
    model: fakeModel(provider.url),
    ...(opts.telegram && opts.botToken
      ? { telegram: { botToken: opts.botToken, apiRoot: opts.telegram.url, burstMs: suiteBurstMs() } }
      : {}),
    ...opts.config,
  };
  const modelProvider = opts.providerTimeoutMs
    ? new OpenAiCompatibleProvider({
        provider: config.model.provider,
        baseUrl: config.model.baseUrl,
        apiKey: config.model.apiKey,
        timeoutMs: opts.providerTimeoutMs,
      })
    : undefined;
  const clock = opts.clockFile ? fileClock(opts.clockFile, logger, () => scheduler.wake()) : undefined;
  const scheduler = new Scheduler(new ScheduleRepo(store.db), logger, clock ? { now: clock.now } : {});
  const agent = new Assistant(config, store, logger, modelProvider, {
    scheduler,
    ...(opts.documents ? { documents: opts.documents } : {}),
    ...(opts.speaker ? { speaker: opts.speaker } : {}),
  });
  const app = serveApp(agent, logger, opts.keepaliveMs, undefined, opts.metricsToken);
  agent.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    agent,
    app,
    url,
    provider,
    store,
    scheduler,
    dataDir,
    logs: lines,
    async close(keepProvider = false) {
      await app.close();
      scheduler.close();
      clock?.close();
      await agent.stop();
      store.close();
      if (!keepProvider && !opts.provider) await provider.stop();
    },
  };
}

/**
 * A test's host on the test file's fakes: started, handed to `body`, and closed after it whatever
 * it did. The provider fake is the file's (fakeTelegramBed), so it outlives the host.
 */
export function withServe(
  opts: ServeOptions & { provider: FakeModelProvider },
  body: (s: Served) => Promise<void>,
): Promise<void> {
  return closing(startServe(opts), body);
}

/** A host however started (startServe, ownBots' serve), handed to `body` and closed as withServe closes it. */
export async function closing<S extends { close(keepProvider?: boolean): Promise<void> }>(
  started: Promise<S>,
  body: (s: S) => Promise<void>,
): Promise<void> {
  const s = await started;
  try {
    await body(s);
  } finally {
    await s.close(true);
  }
}

/** One user message to a host's chat API (POST /v1/chat/completions), in `session` when given. */
export function postChat(url: string, content: string, session?: string) {
  return request(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${GATEWAY}`,
      ...(session ? { 'x-assistant-session-id': session } : {}),
    },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content }] }),
  });
}

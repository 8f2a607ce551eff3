// Metering end to end: the real control plane over HTTP, the real agent host it supervises, and
// the fake router. Managed chats go through the model gateway and land in the ledger; the
// allowance stops them without overshoot, renewal restores them, and the operator key stays home.
import { defaultSettings } from '@berth/contracts/settings';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { request } from 'undici';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { eventually, filesUnder } from './helpers/eventually.js';
import { startE2E, catalogFor, MODEL_KEY, FAKE_PRICE, type E2E } from './helpers/e2e.js';
import { DIALECT, TEST_SECRETS_KEY } from './helpers/database.js';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { safeBody } from '../src/billing/gateway/safe-body.js';
import { costNano } from '../src/billing/pricing.js';

let e: E2E;
// 1000 + 2000 tokens at 1 and 2 USD per million: 0.005 USD a reply. 0.02 USD covers exactly four
// replies of a client that asks for at most 100 tokens (a reservation of well under 0.005 USD).
const REPLY_NANO = 1000 * FAKE_PRICE.prompt * 1000 + 2000 * FAKE_PRICE.completion * 1000;

before(async () => {
  // As an operator would run it: the router key in the control plane's environment.
  process.env.MANAGED_PROVIDER_API_KEY = MODEL_KEY;
  e = await startE2E({ MANAGED_MONTHLY_CREDITS_USD: '0.02', UNLIMITED_MONTHLY_CREDITS_USD: '0.05' });
  e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
});
after(async () => e?.close());

/** The gateway credential the deployment's current worker was given. */
async function credentialOf(id: string) {
  const d = (await e.runtime.services.deployments.findById(id))!;
  return e.runtime.services.billing.credentials.issue(id, d.generation);
}

async function activateManaged(bot: string, mode: 'managed' | 'unlimited' = 'managed'): Promise<string> {
  e.tg.addBot(bot);
  const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: mode });
  assert.equal(bought.status, 201, bought.text);
  const { deploymentId, checkoutUrl } = bought.json.data;
  await request(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const res = await e.api('POST', `/api/v1/assistants/${deploymentId}/activate`, {
    name: 'Metered',
    modelId: 'router/fake-model',
    messengerBotToken: bot,
  });
  assert.equal(res.status, 200, res.text);
  await e.waitForStatus(deploymentId, ['active']);
  return deploymentId;
}

let sdkCalls = 0;
const client = (id: string) =>
  new OpenAI({
    apiKey: e.key,
    baseURL: `${e.url}/api/v1/assistants/${id}`,
    maxRetries: 2,
    fetch: (url, init) => {
      sdkCalls++;
      return fetch(url, init);
    },
  });

async function ledger(id: string) {
  return e.runtime.store.db.selectFrom('usage_records').selectAll().where('deployment_id', '=', id).execute();
}

/** `n` chats through the gateway at once with one credential, the i-th to `urlOf(i)`; their statuses. */
function gatewayBurst(n: number, urlOf: (i: number) => string, cred: string, body: unknown): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const res = await request(`${urlOf(i)}/gateway/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${cred}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await res.body.dump();
      return res.statusCode;
    }),
  );
}

test('managed chats are metered through the gateway, the allowance stops them exactly, renewal restores them', async () => {
  const id = await activateManaged('7300000001:AAbillingManagedBotToken_abcdefghijklmn');
  const seen = e.provider.requests.length;
  for (let i = 0; i < 4; i++) {
    const res = await client(id).chat.completions.create({
      model: 'assistant-agent',
      messages: [{ role: 'user', content: `hello ${i}` }],
      max_tokens: 100,
    });
    assert.match(res.choices[0]!.message.content ?? '', /You said/);
  }
  // The router saw the operator's key, the deployment's model and the usage request, never the worker's credential.
  const calls = e.provider.requests.slice(seen);
  assert.equal(calls.length, 4);
  for (const c of calls) {
    assert.equal(c.headers.authorization, `Bearer ${MODEL_KEY}`);
    assert.equal(c.body.model, 'router/fake-model');
    assert.deepEqual(c.body.stream_options, { include_usage: true });
    assert.equal(c.body.max_tokens, 100);
  }
  const rows = await eventually(
    () => ledger(id),
    (r) => r.length >= 4,
  );
  assert.equal(rows.length, 4);
  assert.deepEqual(
    rows.map((r) => [r.prompt_tokens, r.completion_tokens, Number(r.cost_nano), r.source]),
    Array(4).fill([1000, 2000, REPLY_NANO, 'gateway']),
  );

  // The fifth is refused before anything reaches the router, and the SDK does not retry it.
  const before5 = e.provider.requests.length;
  sdkCalls = 0;
  const err = await client(id)
    .chat.completions.create({
      model: 'assistant-agent',
      messages: [{ role: 'user', content: 'one more' }],
      max_tokens: 100,
    })
    .catch((x) => x);
  assert.equal(err.status, 429);
  assert.equal(err.error?.code, 'CREDITS_EXHAUSTED');
  assert.match(err.error?.message, /renew/);
  assert.equal(err.headers?.get('x-should-retry'), 'false');
  assert.ok(Number(err.headers?.get('retry-after')) > 0);
  assert.equal(sdkCalls, 1, 'the SDK (maxRetries: 2) did not retry');
  assert.equal(e.provider.requests.length, before5, 'nothing reached the router');
  const used = rows.reduce((a, r) => a + Number(r.cost_nano), 0);
  assert.ok(used <= 0.02e9, `spent ${used} nano-USD of a 0.02 USD allowance`);

  // A Telegram user gets a plain sentence: the gateway refuses the agent's call.
  e.tg.userSends('7300000001:AAbillingManagedBotToken_abcdefghijklmn', 8101, { text: 'are you there?' });
  const said = await e.tg.waitForSent((m) => m.chat_id === 8101);
  assert.match(said.text, /allowance/);
  assert.doesNotMatch(said.text, /CREDITS_EXHAUSTED|429/);

  // A paid invoice moves the period end: a fresh period, a fresh allowance.
  const d = (await e.runtime.services.deployments.findById(id))!;
  const next = new Date(Date.parse(d.currentPeriodEnd) + 30 * 86_400_000).toISOString();
  await e.runtime.services.deployments.update(id, d.generation, { currentPeriodEnd: next });
  e.runtime.services.cache.targets.clear();
  // Waits on the wall clock: the gateway's deployment cache keeps a record 2 s (model-gateway.ts).
  await new Promise((r) => setTimeout(r, 2100));
  const renewed = await client(id).chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'renewed' }],
    max_tokens: 100,
  });
  assert.match(renewed.choices[0]!.message.content ?? '', /You said: renewed/);
  assert.equal(
    (
      await eventually(
        () => ledger(id),
        (r) => r.some((x) => x.period_end === next),
      )
    ).filter((r) => r.period_end === next).length,
    1,
  );
});

test('the operator key never reaches a worker: not its environment, arguments, files or spec', async () => {
  const id = await activateManaged('7300000002:AAbillingSecretScanBotToken_abcdefghijk', 'unlimited');
  await client(id).chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 50,
  });
  const host = e.runtime.services.workers;
  assert.ok(host instanceof LocalAgentHost && host.pid);
  const environ = readFileSync(`/proc/${host.pid}/environ`, 'utf8');
  const cmdline = readFileSync(`/proc/${host.pid}/cmdline`, 'utf8');
  assert.ok(!environ.includes(MODEL_KEY), 'environment');
  assert.ok(!cmdline.includes(MODEL_KEY), 'command line');
  for (const file of filesUnder(join(e.dataDir, 'agents'))) {
    assert.ok(!readFileSync(file).includes(MODEL_KEY), `file ${file}`);
  }
  const d = (await e.runtime.services.deployments.findById(id))!;
  const { buildWorkerSpec } = await import('../src/workers/spec.js');
  const spec = buildWorkerSpec(e.runtime.services, d, defaultSettings());
  assert.ok(!JSON.stringify(spec).includes(MODEL_KEY));
  assert.match(spec.model.apiKey ?? '', /^bgw_/);
  assert.ok(spec.model.baseUrl.endsWith('/gateway/v1'));
});

test('gateway: a wrong or foreign credential is refused, router-only parameters are dropped', async () => {
  const id = await activateManaged('7300000003:AAbillingGatewayParamsBotToken_abcdefgh', 'unlimited');
  const gw = `${e.runtime.gatewayUrl()}/gateway/v1/chat/completions`;
  const post = (auth: string, body: object) =>
    request(gw, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const cred = await credentialOf(id);
  const bad = await post(`Bearer ${cred.slice(0, -2)}xx`, { messages: [{ role: 'user', content: 'x' }] });
  assert.equal(bad.statusCode, 401);
  await bad.body.dump();
  const seen = e.provider.requests.length;
  const ok = await post(`Bearer ${cred}`, {
    model: 'openai/gpt-5-pro',
    models: ['anthropic/claude-opus'],
    route: 'fallback',
    provider: { order: ['x'] },
    plugins: [{ id: 'web' }],
    transforms: ['middle-out'],
    n: 5,
    max_tokens: 999_999,
    messages: [{ role: 'user', content: 'x' }],
  });
  assert.equal(ok.statusCode, 200);
  await ok.body.dump();
  const sent = e.provider.requests[seen]!.body;
  assert.equal(sent.model, 'router/fake-model');
  for (const k of ['models', 'route', 'provider', 'plugins', 'transforms']) assert.equal(sent[k], undefined, k);
  assert.equal(sent.n, 1);
  assert.equal(sent.max_tokens, 4096);
});

/** 100 concurrent gateway calls spread over `urls` (control-plane processes) against an allowance covering 10 holds. */
async function raceGateway(id: string, urls: string[]) {
  const cred = await credentialOf(id);
  const body = { messages: [{ role: 'user', content: 'race' }], max_tokens: 64, stream: true };
  const safe = safeBody(body, 'router/fake-model');
  assert.ok(!('error' in safe));
  const promptEstimate = Math.ceil(Buffer.byteLength(JSON.stringify(safe.body)) / 2);
  const hold = costNano(FAKE_PRICE, promptEstimate, 64);
  const d = (await e.runtime.services.deployments.findById(id))!;
  const key = { deploymentId: id, periodEnd: d.currentPeriodEnd };
  await e.runtime.services.usage.ensurePeriod(key, 0);
  await e.runtime.services.usage.setAllowance(key, Math.floor(hold * 10.5));
  // Each reply really costs what it held, so no early settlement frees room for more than 10.
  e.provider.usage = { prompt_tokens: promptEstimate, completion_tokens: 64 };
  e.provider.fallback = () => ({ content: 'slow answer', delayMs: 400 });
  const seen = e.provider.requests.length;
  try {
    const statuses = await gatewayBurst(100, (i) => urls[i % urls.length]!, cred, body);
    const admitted = statuses.filter((s) => s === 200).length;
    // On failure, say enough to tell a store race from a reply booked below its hold.
    const seenBy = (c: number) => statuses.filter((s) => s === c).length;
    const why = async () =>
      `admitted ${admitted}; statuses 200:${seenBy(200)} 429:${seenBy(429)} other:${100 - seenBy(200) - seenBy(429)}; ` +
      `router calls ${e.provider.requests.length - seen}; hold ${hold}; period ${JSON.stringify(await e.runtime.services.usage.period(key))}; ` +
      `ledger ${JSON.stringify((await ledger(id)).map((r) => Number(r.cost_nano)))}`;
    if (!(admitted <= 10 && admitted >= 1)) assert.fail(await why());
    assert.equal(statuses.filter((s) => s === 429).length, 100 - admitted);
    assert.equal(e.provider.requests.length - seen, admitted);
    const p = (await eventually(
      () => e.runtime.services.usage.period(key),
      (x) => x!.reservedNano === 0,
    ))!;
    assert.equal(p.reservedNano, 0, 'every hold was released');
    assert.ok(p.usedNano <= p.allowanceNano!);
    assert.equal(p.usedNano, admitted * hold);
  } finally {
    e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
    e.provider.fallback = (b: any) => ({ content: `You said: ${b.messages.at(-1).content}` });
  }
}

test('100 concurrent gateway calls against an allowance that covers 10 admit at most 10', async () => {
  const id = await activateManaged('7300000004:AAbillingConcurrencyBotToken_abcdefghij', 'unlimited');
  await raceGateway(id, [e.runtime.gatewayUrl()]);
});

test('the same race across two control-plane processes on one PostgreSQL admits at most 10', {
  skip: DIALECT !== 'postgres' && 'needs a database two processes share (PostgreSQL)',
}, async () => {
  const id = await activateManaged('7300000007:AAbillingTwoReplicasBotToken_abcdefghij', 'unlimited');
  const env = {
    ...process.env,
    PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-replica-')),
    MODEL_CATALOG: catalogFor(e.provider.url),
    MANAGED_PROVIDER_API_KEY: MODEL_KEY,
    LOG_LEVEL: 'warn',
    DATABASE_URL: e.databaseUrl!,
    SECRETS_KEY: TEST_SECRETS_KEY,
  };
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'helpers/replica.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('the second control plane did not start')), 60_000);
      child.once('exit', (code) => fail(new Error(`the second control plane exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const u = JSON.parse(line).gatewayUrl;
          if (u) {
            clearTimeout(timer);
            ok(u);
          }
        } catch {
          /* a log line */
        }
      });
    });
    await raceGateway(id, [e.runtime.gatewayUrl(), url]);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  }
});

test('a router that over-reports usage cannot push the ledger past the allowance (50 concurrent calls)', async () => {
  const id = await activateManaged('7300000011:AAbillingLyingRouterBotToken_abcdefghij', 'managed');
  const cred = await credentialOf(id);
  const body = { messages: [{ role: 'user', content: 'x'.repeat(60) }], max_tokens: 64 };
  const safe = safeBody(body, 'router/fake-model');
  assert.ok(!('error' in safe));
  const hold = costNano(FAKE_PRICE, Math.ceil(Buffer.byteLength(JSON.stringify(safe.body)) / 2), 64);
  const d = (await e.runtime.services.deployments.findById(id))!;
  const key = { deploymentId: id, periodEnd: d.currentPeriodEnd };
  await e.runtime.services.usage.ensurePeriod(key, 0);
  const allowance = Math.floor(hold * 10.5);
  await e.runtime.services.usage.setAllowance(key, allowance);
  // A 100-byte prompt billed as 20 000 tokens: each reply claims ~40 holds' worth.
  e.provider.usage = { prompt_tokens: 20_000, completion_tokens: 64 };
  e.provider.fallback = () => ({ content: 'answer', delayMs: 200 });
  try {
    const statuses = await gatewayBurst(50, () => e.runtime.gatewayUrl(), cred, body);
    const admitted = statuses.filter((s) => s === 200).length;
    assert.ok(admitted >= 1 && admitted <= 10, `admitted ${admitted}`);
    const p = (await eventually(
      () => e.runtime.services.usage.period(key),
      (x) => x!.reservedNano === 0,
    ))!;
    assert.equal(p.reservedNano, 0);
    assert.ok(p.usedNano <= allowance, `used ${p.usedNano / allowance}× the allowance`);
    const booked = (await ledger(id)).reduce((a, r) => a + Number(r.cost_nano), 0);
    assert.ok(booked <= allowance, `ledger ${booked / allowance}× the allowance`);
    assert.ok(e.logs.some((l) => l.includes('reported more usage than the allowance had room for')));
  } finally {
    e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
    e.provider.fallback = (b: any) => ({ content: `You said: ${b.messages.at(-1).content}` });
  }
});

test('the gateway credential dies with its generation: refused after a redeploy and after a stop', async () => {
  const id = await activateManaged('7300000012:AAbillingRotatedCredBotToken_abcdefghij', 'unlimited');
  const call = async (cred: string) => {
    const res = await request(`${e.runtime.gatewayUrl()}/gateway/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cred}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 }),
    });
    await res.body.dump();
    return res.statusCode;
  };
  // Cheap replies: the polling below makes many calls.
  e.provider.usage = { prompt_tokens: 1, completion_tokens: 1 };
  try {
    await rotation(id, call);
  } finally {
    e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
  }
});

async function rotation(id: string, call: (cred: string) => Promise<number>) {
  const first = await credentialOf(id);
  assert.equal(await call(first), 200);
  const re = await e.api('POST', `/api/v1/assistants/${id}/redeploy`, {});
  assert.equal(re.status, 200, re.text);
  await e.waitForStatus(id, ['active']);
  const second = await credentialOf(id);
  assert.notEqual(second, first);
  // The gateway caches a deployment for a second or two: poll until the old one is refused.
  assert.equal(
    await eventually(
      () => call(first),
      (s) => s === 401,
    ),
    401,
  );
  assert.equal(await call(second), 200);
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
  assert.equal(
    await eventually(
      () => call(second),
      (s) => s === 401,
    ),
    401,
  );
}

test('credits that run out inside a turn answer like the direct refusal: 429, Retry-After, x-should-retry, renewsAt; the SDK does not retry', async () => {
  const id = await activateManaged('7300000013:AAbillingInTurnCreditsBotToken_abcdefg', 'managed');
  const d = (await e.runtime.services.deployments.findById(id))!;
  const key = { deploymentId: id, periodEnd: d.currentPeriodEnd };
  await e.runtime.services.usage.ensurePeriod(key, 0);
  // Enough for the control plane's estimate of the client's small request (admitted), not for
  // the gateway's hold of the agent's call (system prompt and tools on top): refused inside the turn.
  await e.runtime.services.usage.setAllowance(key, 300_000);
  const seen = e.provider.requests.length;
  for (const stream of [false, true]) {
    sdkCalls = 0;
    const err = await (async () => {
      if (!stream)
        return client(id).chat.completions.create({
          model: 'assistant-agent',
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 100,
        });
      const s = await client(id).chat.completions.create({
        model: 'assistant-agent',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 100,
        stream: true,
      });
      for await (const _ of s) {
        /* drain */
      }
    })().catch((x) => x);
    assert.equal(err?.status, 429, `stream ${stream}: ${String(err)}`);
    assert.equal(err.error?.code, 'CREDITS_EXHAUSTED');
    assert.equal(err.error?.details?.renewsAt, d.currentPeriodEnd);
    assert.equal(err.headers?.get('x-should-retry'), 'false');
    assert.ok(Number(err.headers?.get('retry-after')) > 0);
    assert.equal(sdkCalls, 1, `stream ${stream}: the SDK (maxRetries: 2) did not retry`);
  }
  assert.equal(e.provider.requests.length, seen, 'nothing reached the router');
});

test("byok: replies are metered through the gateway, the owner's cap stops them, the usage API reports the period", async () => {
  const bot = '7300000005:AAbillingByokCapBotToken_abcdefghijklmnopq';
  e.tg.addBot(bot);
  const id = await e.activate(bot);
  await e.waitForStatus(id, ['active']);
  // Managed assistants' credit is the operator's: no cap there. Bad bodies change nothing.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: -1 })).status, 400);
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { cap: 1 })).status, 400);
  const set = await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 0.012 });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.json, { data: { monthlySpendCapUsd: 0.012 } });

  let ok = 0;
  let refused: any;
  for (let i = 0; i < 6 && !refused; i++) {
    const res = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: `byok ${i}` }],
      max_tokens: 100,
    });
    if (res.status === 200) ok++;
    else refused = res;
    await eventually(
      () => ledger(id),
      (r) => r.length >= ok,
    );
  }
  assert.equal(ok, 3, 'three replies of 0.005 USD fit a 0.012 USD cap with room for the next hold');
  assert.equal(refused.status, 429);
  assert.equal(refused.json.error.code, 'CREDITS_EXHAUSTED');
  assert.match(refused.json.error.message, /limits/);

  const usage = await e.api('GET', `/api/v1/assistants/${id}/usage`);
  assert.equal(usage.status, 200, usage.text);
  const u = usage.json.data;
  assert.equal(u.apiMode, 'byok');
  assert.equal(u.allowanceUsd, 0.012);
  // The third reply reported more than its hold: booked up to the cap, as a managed one (decision 0012).
  assert.equal(u.usedUsd, 0.012);
  assert.equal(u.remainingUsd, 0);
  assert.equal(u.replies, 3);
  assert.equal(u.promptTokens, 3000);
  assert.deepEqual(u.daily, [
    {
      date: new Date().toISOString().slice(0, 10),
      replies: 3,
      promptTokens: 3000,
      completionTokens: 6000,
      costUsd: 0.012,
    },
  ]);
  assert.ok(Date.parse(u.period.start) <= Date.parse(u.period.end));

  // Raising the cap lets the assistant answer again at once.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: null })).status, 200);
  const again = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'uncapped' }],
  });
  assert.equal(again.status, 200, again.text);
  // Uncapped, nothing is held, but the reply is still booked.
  await eventually(
    () => ledger(id),
    (r) => r.length === 4,
  );
  const after = (await e.api('GET', `/api/v1/assistants/${id}/usage`)).json.data;
  assert.equal(after.replies, 4);
  assert.equal(after.allowanceUsd, null);

  // Another user sees nothing of it.
  const { createApiKey } = await import('../src/index.js');
  const other = (
    await createApiKey(
      { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
      `other-${Date.now()}@example.com`,
    )
  ).key;
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/usage`, undefined, { 'x-api-key': other })).status, 404);
  assert.equal(
    (await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 1 }, { 'x-api-key': other })).status,
    404,
  );
});

test('byok: 10 concurrent chats pass the cap by at most one reply', async () => {
  const bot = '7300000014:AAbillingByokConcurrentCapBot_abcdefghij';
  e.tg.addBot(bot);
  const id = await e.activate(bot);
  await e.waitForStatus(id, ['active']);
  // Each reply books 0.005 USD (1 000 + 2 000 tokens) against a hold of well under that.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 0.012 })).status, 200);
  const answers = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
        model: 'assistant-agent',
        messages: [{ role: 'user', content: `together ${i}` }],
        max_tokens: 100,
      }),
    ),
  );
  for (const a of answers) assert.ok(a.status === 200 || a.json?.error?.code === 'CREDITS_EXHAUSTED', a.text);
  const ok = answers.filter((a) => a.status === 200).length;
  const rows = await eventually(
    () => ledger(id),
    (r) => r.length >= ok,
  );
  const used = rows.reduce((a, r) => a + Number(r.cost_nano), 0);
  assert.ok(used <= 0.012e9 + REPLY_NANO, `${ok} replies booked ${used / 0.012e9}× the cap`);
});

test('byok: a cap set right after uncapped chats stops the next chat at the proxy, before the worker', async () => {
  const bot = '7300000015:AAbillingByokCapAfterUncappedBot_abcdefgh';
  e.tg.addBot(bot);
  const id = await e.activate(bot);
  await e.waitForStatus(id, ['active']);
  const chat = (content: string) =>
    e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content }],
      max_tokens: 100,
    });
  // What reached the model gateway (the worker's model calls): a chat the proxy refuses never does.
  const gatewayCalls = () =>
    e.logs.filter((l) => l.includes('"incoming request"') && l.includes('/gateway/v1/')).length;
  const before = gatewayCalls();
  // Uncapped: the proxy remembers for a second that the period has no allowance.
  assert.equal((await chat('uncapped one')).status, 200);
  assert.equal((await chat('uncapped two')).status, 200);
  const booked = (
    await eventually(
      () => ledger(id),
      (r) => r.length >= 2,
    )
  ).length;
  const reached = gatewayCalls();
  assert.ok(reached > before, 'the uncapped chats reached the gateway');
  // A cap below what is already spent, set through this replica: the next chat is refused here.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 0.001 })).status, 200);
  const refused = await chat('capped');
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.json.error.code, 'CREDITS_EXHAUSTED');
  assert.match(refused.json.error.message, /limits/);
  assert.equal(gatewayCalls(), reached, "the proxy's own refusal: the worker made no model call");
  assert.equal((await ledger(id)).length, booked, 'nothing booked for the refused chat');
});

test("a managed assistant has no owner cap; its usage shows the operator's allowance", async () => {
  const id = await activateManaged('7300000006:AAbillingManagedUsageBotToken_abcdefghi');
  const res = await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 1 });
  assert.equal(res.status, 400);
  assert.equal(res.json.error.code, 'INVALID_INPUT');
  const usage = await e.api('GET', `/api/v1/assistants/${id}/usage`);
  assert.equal(usage.json.data.allowanceUsd, 0.02);
  assert.equal(usage.json.data.remainingUsd, 0.02);
  assert.deepEqual(usage.json.data.daily, []);
});

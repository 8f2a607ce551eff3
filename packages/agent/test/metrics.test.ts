// The agent's own GET /metrics (DESIGN §7.5, docs/decisions/0025): Prometheus text to the bearer of
// METRICS_TOKEN (or of a host's admin token, which is how its supervising control plane reads
// it), a 401 envelope to anyone else, a 404 when neither applies. Scraped after a chat and a bot
// whose token Telegram rejects, and linted with promtool.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { promtoolFindings } from '@berth/testkit';
import { AgentHost } from '../src/runtime/host.js';
import { SessionStore } from '../src/storage/sessions.js';
import { hostApp } from '../src/runtime/server.js';
import { AgentConfigError, loadHostConfig } from '../src/config/env.js';
import { captureLogs, GATEWAY, startServe, withServe, fakeModel } from './helpers/serve.js';
import { fakeTelegramBed, listenLoopback, waitFor } from './helpers/bed.js';

const ADMIN = 'admin-token-for-metrics-tests-0123456789';
const METRICS = 'metrics-token-for-agent-0123456789';
const GOOD_BOT = '7300000001:AAmetricsAgentGoodFakeTokenForTests_a';
// Not added to FakeTelegram: its getMe answers 401, as Telegram does for a revoked token.
const REJECTED_BOT = '7300000002:AAmetricsAgentRejectedFakeToken_Tests_b';
/** A user's chat, its id as long as Telegram's are. */
const CHAT = 5_712_046_893;
const { tg, provider } = fakeTelegramBed(GOOD_BOT);

let store: SessionStore;
let host: AgentHost;
let app: ReturnType<typeof hostApp>;
let url: string;
before(async () => {
  store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-metrics-')));
  const { logger } = captureLogs();
  host = new AgentHost(store, logger);
  app = hostApp(host, logger, ADMIN, { metricsToken: METRICS });
  url = await listenLoopback(app);
});
after(async () => {
  await app.close();
  await host.close();
  store.close();
});

const scrape = (base: string, auth?: string) =>
  request(`${base}/metrics`, { headers: auth === undefined ? {} : { authorization: auth } });

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const put = (name: string, botToken: string, gatewayToken: string) =>
  request(`${url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      gatewayToken,
      model: fakeModel(provider.url),
      telegram: { botToken, apiRoot: tg.url },
    }),
  });

test('after a chat and a token Telegram rejects, the scrape counts them, names no agent, and promtool finds it clean', async () => {
  const before = await (await scrape(url, `Bearer ${METRICS}`)).body.text();
  const rejectedBefore = sample(before, 'berth_telegram_errors_total{kind="token_rejected"}');
  assert.equal(typeof rejectedBefore, 'number', 'every kind is exposed from the start');

  assert.equal((await put('metrics-good', GOOD_BOT, 'gateway-good-0123456789')).statusCode, 200);
  assert.equal((await put('metrics-rejected', REJECTED_BOT, 'gateway-rejected-0123456789')).statusCode, 200);
  await waitFor(() => host.get('metrics-good')!.health().ready && host.get('metrics-rejected')!.state === 'failed');
  // Telegram asks the reply to wait a second: counted once, then sent by the retry.
  tg.throttle.push({ method: 'sendMessage', retryAfter: 1 });
  tg.userSends(GOOD_BOT, CHAT, { text: 'hello metrics' });
  await tg.waitForSent((m) => m.chat_id === CHAT);
  const chat = await request(`${url}/agents/metrics-good/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer gateway-good-0123456789', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(chat.statusCode, 200);
  await chat.body.text();

  const res = await scrape(url, `Bearer ${METRICS}`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  assert.equal(res.headers['cache-control'], 'no-store');
  const text = await res.body.text();
  assert.equal(sample(text, 'berth_telegram_errors_total{kind="token_rejected"}'), rejectedBefore! + 1, text);
  const rateLimitedBefore = sample(before, 'berth_telegram_errors_total{kind="rate_limited"}')!;
  assert.equal(sample(text, 'berth_telegram_errors_total{kind="rate_limited"}'), rateLimitedBefore + 1);
  assert.equal(sample(text, 'berth_agents{state="connected"}'), 1);
  assert.equal(sample(text, 'berth_agents{state="failed"}'), 1);
  assert.equal(sample(text, 'berth_agents{state="disabled"}'), 0);
  assert.ok((sample(text, 'berth_agent_host_rss_bytes') ?? 0) > 10_000_000, 'resident memory');
  for (const outcome of ['sent', 'refused', 'skipped', 'failed', 'missed'])
    assert.equal(typeof sample(text, `berth_scheduled_sends_total{outcome="${outcome}"}`), 'number');
  assert.equal(typeof sample(text, 'berth_agent_pool_jobs_total{pool="document",outcome="done"}'), 'number');
  // Bounded labels: no agent name, chat id, bot or token in a series' name or labels, or in a
  // comment. The values are left out: a byte count or a duration may hold any digits (one under
  // load held "701", the chat id this test once used).
  const named = text
    .split('\n')
    .map((l) => (l.startsWith('#') ? l : l.slice(0, l.lastIndexOf(' '))))
    .join('\n');
  for (const secret of ['metrics-good', 'metrics-rejected', String(CHAT), GOOD_BOT.split(':')[0]!, 'gateway-good'])
    assert.ok(!named.includes(secret), `${secret} is not in the metrics`);

  const findings = promtoolFindings(text);
  if (findings !== undefined) assert.equal(findings, '', 'no lint findings');
});

test('a scrape without the metrics token, or with a wrong one, is the 401 envelope; the admin token opens it', async () => {
  for (const auth of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${METRICS}`, `Bearer ${METRICS}x`]) {
    const res = await scrape(url, auth);
    assert.equal(res.statusCode, 401, String(auth));
    const body = (await res.body.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'UNAUTHORIZED');
    assert.match(body.error.message, /METRICS_TOKEN/);
  }
  // The supervising control plane reads a local host's metrics with the host's admin token.
  assert.equal((await scrape(url, `Bearer ${ADMIN}`)).statusCode, 200);
  // A gateway token of an assistant on the host is no metrics token.
  const res = await scrape(url, 'Bearer gateway-good-0123456789');
  assert.equal(res.statusCode, 401);
  await res.body.text();
});

test('without METRICS_TOKEN: a host answers only its admin token, and a serve worker has no /metrics', async () => {
  const { logger } = captureLogs();
  const bare = new AgentHost(store, logger);
  const bareApp = hostApp(bare, logger, ADMIN);
  const bareUrl = await listenLoopback(bareApp);
  const s = await startServe({ provider });
  try {
    for (const auth of [undefined, `Bearer ${METRICS}`]) {
      const res = await scrape(bareUrl, auth);
      assert.equal(res.statusCode, 404, String(auth));
      assert.equal(((await res.body.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    }
    const admin = await scrape(bareUrl, `Bearer ${ADMIN}`);
    assert.equal(admin.statusCode, 200);
    assert.match(await admin.body.text(), /^berth_agents\{state="connected"\} 0$/m);
    for (const auth of [undefined, `Bearer ${GATEWAY}`]) {
      const res = await scrape(s.url, auth);
      assert.equal(res.statusCode, 404, String(auth));
      await res.body.text();
    }
  } finally {
    await bareApp.close();
    await s.close(true);
  }
});

test('a serve worker with METRICS_TOKEN serves its one assistant', () =>
  withServe({ provider, metricsToken: METRICS }, async (s) => {
    assert.equal((await scrape(s.url, `Bearer ${GATEWAY}`)).statusCode, 401);
    const res = await scrape(s.url, `Bearer ${METRICS}`);
    assert.equal(res.statusCode, 200);
    const text = await res.body.text();
    assert.equal(sample(text, 'berth_agents{state="disabled"}'), 1);
    assert.equal(sample(text, 'berth_agents{state="connected"}'), 0);
  }));

test('METRICS_TOKEN is read by the config module and must be long enough', () => {
  const env = { ADMIN_TOKEN: ADMIN };
  assert.equal(loadHostConfig(env).metricsToken, undefined);
  assert.equal(loadHostConfig({ ...env, METRICS_TOKEN: ` ${METRICS} ` }).metricsToken, METRICS);
  assert.throws(
    () => loadHostConfig({ ...env, METRICS_TOKEN: 'short' }),
    (err) => err instanceof AgentConfigError && err.variable === 'METRICS_TOKEN',
  );
});

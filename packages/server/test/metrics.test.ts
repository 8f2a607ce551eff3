// GET /metrics (DESIGN §7.5): Prometheus text to the bearer of METRICS_TOKEN, a 401 envelope to
// anyone else, a JSON 404 when no token is configured (it used to fall into the dashboard and
// answer its HTML with 200, which a scrape reads as a healthy target). Scraped after real chats
// through the real agent host, and linted with promtool.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { promtoolFindings } from '@berth/testkit';
import { activeBot, startE2E, type E2E } from './helpers/e2e.js';
import { startHarness, type Harness } from './helpers/harness.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const BOT = '7200000101:AAmetricsFakeBotTokenForControlPlane_x';
const BAD_BOT = '7299999101:AAtokenThatTheFakeTelegramDoesNotKnow_m';

let e: E2E;
let id: string;
let bare: Harness;
let pageDir: string;

before(async () => {
  pageDir = mkdtempSync(join(tmpdir(), 'berth-dash-'));
  writeFileSync(join(pageDir, 'index.html'), '<!doctype html><title>dashboard</title>');
  bare = await startHarness({}, { dashboardDir: pageDir });
  e = await startE2E({ METRICS_TOKEN: TOKEN });
  id = await activeBot(e, BOT);
});
after(async () => {
  await e?.close();
  await bare?.close();
  rmSync(pageDir, { recursive: true, force: true });
});

const scrape = (auth?: string) =>
  request(`${e.url}/metrics`, { headers: auth === undefined ? {} : { authorization: auth } });

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('without METRICS_TOKEN, /metrics is a JSON 404, not the dashboard page', async () => {
  const res = await bare.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 404);
  assert.match(String(res.headers['content-type']), /application\/json/);
  assert.equal(res.json().error.code, 'NOT_FOUND');
  // The dashboard still answers its own pages.
  assert.equal((await bare.inject({ method: 'GET', url: '/deployments' })).statusCode, 200);
});

test('a scrape without the token, or with a wrong one, is a 401 envelope', async () => {
  for (const auth of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
    const res = await scrape(auth);
    assert.equal(res.statusCode, 401, String(auth));
    const body = (await res.body.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'UNAUTHORIZED');
    assert.match(body.error.message, /METRICS_TOKEN/);
  }
});

test('after chats, the scrape counts them by route pattern, meters them, and promtool finds it clean', async () => {
  const chat = (stream: boolean) =>
    request(`${e.url}/api/v1/assistants/${id}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hello' }], stream }),
    }).then(async (r) => ({ status: r.statusCode, text: await r.body.text() }));
  for (const stream of [false, true, false]) assert.equal((await chat(stream)).status, 200);
  // A token Telegram rejects: a failed deployment and a Telegram error.
  const bad = await e.activate(BAD_BOT);
  assert.equal((await e.waitForStatus(bad, ['active', 'failed'])).status, 'failed');
  await e.runtime.idle();

  const res = await scrape(`Bearer ${TOKEN}`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = await res.body.text();

  const route = '/api/v1/assistants/:deploymentId/chat/completions';
  // Two buffered chats and one streamed (hijacked: Fastify still runs onResponse when it ends).
  assert.equal(sample(text, `berth_http_requests_total{route="${route}",method="POST",status="200"}`), 3);
  assert.equal(sample(text, `berth_http_request_duration_seconds_count{route="${route}",method="POST"}`), 3);
  assert.ok((sample(text, 'berth_chat_first_byte_seconds_count') ?? 0) >= 3, 'first bytes observed');
  // Bounded labels: no deployment id, no raw URL.
  assert.ok(!text.includes(id), 'no deployment id in the metrics');
  assert.ok(!text.includes(bad), 'no deployment id in the metrics');
  // The byok chats' replies are metered from their usage.
  assert.ok((sample(text, 'berth_gateway_tokens_total{mode="byok",kind="completion"}') ?? 0) > 0, text);
  assert.ok((sample(text, 'berth_gateway_cost_usd_total{mode="byok",model="fake-model-1"}') ?? 0) > 0);
  assert.equal(sample(text, 'berth_deployments{status="active"}'), 1);
  assert.equal(sample(text, 'berth_deployments{status="failed"}'), 1);
  // Counted once, by the agent host that heard Telegram refuse it (its getMe), and carried into
  // this scrape from the local host's /metrics: the control plane does not count it a second time.
  assert.equal(sample(text, 'berth_telegram_errors_total{kind="token_rejected"}'), 1);
  assert.equal(text.match(/^# TYPE berth_telegram_errors_total /gm)?.length, 1, 'one family, not two');
  // The host's other families: its assistants by channel state.
  assert.equal(sample(text, 'berth_agents{state="connected"}'), 1);
  assert.equal(sample(text, 'berth_jobs_queued'), 0);
  assert.equal(sample(text, 'berth_jobs_oldest_age_seconds'), 0);
  assert.equal(sample(text, 'berth_callbacks_failed_total'), 0);
  // The local agent host's resident memory, from its /metrics.
  assert.ok((sample(text, 'berth_agent_host_rss_bytes') ?? 0) > 10_000_000, 'agent host rss');
  assert.ok(sample(text, 'process_resident_memory_bytes'), "Node's process metrics");

  // Every series the Grafana dashboard queries exists in the scrape.
  const dashboard = readFileSync(new URL('../../../docs/operations/grafana-dashboard.json', import.meta.url), 'utf8');
  const queried = new Set(dashboard.match(/\b(?:berth|process)_[a-z_]+/g));
  assert.ok(queried.size >= 10);
  for (const name of queried) assert.match(text, new RegExp(`^${name}[{ ]`, 'm'), `${name} is exposed`);

  // undefined: no promtool on this machine (CI installs it); every check above still ran.
  const findings = promtoolFindings(text);
  if (findings !== undefined) assert.equal(findings, '', 'no lint findings');
});

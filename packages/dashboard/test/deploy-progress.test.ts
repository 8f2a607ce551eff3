// Deploy progress on the deployment page (issue 29) in Debian's Chromium against the real control
// plane, agent host and FakeTelegram: while Telegram cannot be reached the page shows the steps
// (Paid → Creating the worker → Waiting for Telegram → Active) with the worker's own words and a
// ticking elapsed time; once Telegram answers it turns active. A token Telegram rejects ends in a
// failed deploy that says what to do next.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startE2E, MODEL_KEY, type E2E } from '../../server/test/helpers/e2e.js';
import { buildDashboard, checkPage, chromiumPath, freePort, launch } from './helpers/browser.js';

const CHROMIUM = chromiumPath();
const skip = CHROMIUM ? false : 'Chromium is not installed (apt-get install -y chromium); CI installs it';
const BOT = '7200000061:AAdeployProgressFakeBotTokenBrowser_x';
const REJECTED = '7200000062:AAdeployProgressRejectedBotToken_xyz';

let e: E2E;
let dir: string;
let browser: Browser;
let page: Page;
let key = '';
let telegramPort = 0;
let relay: Server | undefined;
const pageErrors: string[] = [];

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${e.url}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));

/** purchase → pay → activate with the dashboard user's key; the deployment id. */
async function activate(token: string): Promise<string> {
  const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const id = bought.json.data.deploymentId as string;
  await fetch(`${e.url}${new URL(bought.json.data.checkoutUrl).pathname}/complete`, { method: 'POST' });
  const act = await api('POST', `/api/v1/assistants/${id}/activate`, {
    name: `Progress ${token.slice(-3)}`,
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    messengerBotToken: token,
    modelApiKey: MODEL_KEY,
  });
  assert.equal(act.status, 200, JSON.stringify(act.json));
  return id;
}

before(async () => {
  if (skip) return;
  dir = await buildDashboard();
  // Telegram's address is a port that refuses connections until the test opens a relay on it.
  telegramPort = await freePort();
  const port = await freePort();
  e = await startE2E(
    {
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      TELEGRAM_API_ROOT: `http://127.0.0.1:${telegramPort}`,
      DEPLOY_TIMEOUT_SECONDS: '45',
    },
    { dashboardDir: dir },
  );
  e.tg.addBot(BOT);
  browser = await launch(CHROMIUM!);
  const ctx = await browser.newContext({ baseURL: e.url, viewport: { width: 1440, height: 900 } });
  page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto('/');
  await page.getByRole('link', { name: 'Create one' }).click();
  await page.getByLabel('Email').fill('deployer@example.com');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('setup');
  await page.getByRole('button', { name: 'Create key' }).click();
  key = (await page.getByTestId('new-key').textContent()) ?? '';
});

after(async () => {
  if (skip) return;
  relay?.close();
  await browser?.close();
  await e?.close();
  rmSync(dir, { recursive: true, force: true });
});

const elapsedSeconds = async () => {
  const text = (await page.getByTestId('deploy-elapsed').textContent()) ?? '';
  const m = /(?:(\d+) min )?(\d+) s/.exec(text);
  assert.ok(m, text);
  return Number(m[1] ?? 0) * 60 + Number(m[2]);
};

test('deploying: steps, the worker’s reason and a ticking clock, then active', { skip }, async () => {
  const id = await activate(BOT);
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Deploying' });
  const steps = card.getByRole('list', { name: 'Deploy steps' });
  await steps.getByRole('listitem').filter({ hasText: 'Paid' }).waitFor();
  // Within 10 s the page says what the deploy waits for, in the worker's words.
  await page
    .getByText(/Waiting for Telegram: getMe failed: connection refused \(attempt \d+\)/)
    .waitFor({ timeout: 10_000 });
  const current = steps.locator('[aria-current="step"]');
  assert.equal(await current.textContent(), 'Waiting for Telegram');
  assert.deepEqual(await steps.getByRole('listitem').allTextContents(), [
    'Paid',
    'Creating the worker',
    'Waiting for Telegram',
    'Active',
  ]);
  const first = await elapsedSeconds();
  await page.waitForTimeout(2200);
  assert.ok((await elapsedSeconds()) >= first + 2, 'the elapsed time ticks');
  await checkPage(page, 'deploy-01-waiting');

  // Telegram comes back: the relay forwards the port to FakeTelegram, and the deploy goes through.
  const tgPort = Number(new URL(e.tg.url).port);
  relay = createServer((c) => {
    const up = connect(tgPort, '127.0.0.1');
    c.pipe(up).pipe(c);
    c.on('error', () => up.destroy());
    up.on('error', () => c.destroy());
  });
  await new Promise<void>((r) => relay!.listen(telegramPort, '127.0.0.1', r));
  await page.locator('.badge-active').first().waitFor({ timeout: 40_000 });
  await card.waitFor({ state: 'detached' });
  await page.getByRole('link', { name: 'Open the chat playground' }).waitFor();
});

test('a failed deploy says what to do next', { skip }, async () => {
  const id = await activate(REJECTED);
  await page.goto(`/deployments/${id}`);
  const failed = page.getByRole('region', { name: 'The deploy failed' });
  await failed.waitFor({ timeout: 20_000 });
  await page.getByText(/Telegram rejected the bot token/).waitFor();
  await failed.getByText('What to do next:').waitFor();
  const advice = (await failed.textContent()) ?? '';
  assert.match(advice, /@BotFather/);
  assert.match(advice, new RegExp(`berth assistants redeploy ${id}`));
  await page.getByRole('button', { name: 'Redeploy' }).waitFor();
  assert.equal(await page.getByTestId('deploy-elapsed').count(), 0);
  await checkPage(page, 'deploy-02-failed');
  assert.deepEqual(pageErrors, []);
});

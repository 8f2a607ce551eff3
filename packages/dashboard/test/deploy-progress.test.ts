// Deploy progress on the deployment page (issue 29) in Debian's Chromium against the real control
// plane, agent host and FakeTelegram: while Telegram cannot be reached the page shows the steps
// (Paid → Creating the worker → Waiting for Telegram → Active) with the worker's own words and a
// ticking elapsed time; once Telegram answers it turns active. A token Telegram rejects ends in a
// failed deploy that says what to do next.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server } from 'node:net';
import type { Page } from 'playwright-core';
import type { E2E } from '../../server/test/helpers/e2e.js';
import { checkPage, freePort, skip } from './helpers/browser.js';
import { startSignedIn, type SignedIn } from './helpers/signed-in.js';

const BOT = '7200000061:AAdeployProgressFakeBotTokenBrowser_x';
const REJECTED = '7200000062:AAdeployProgressRejectedBotToken_xyz';

let rig: SignedIn;
let e: E2E;
let page: Page;
let telegramPort = 0;
let relay: Server | undefined;

const activate = (token: string) => rig.activate(token, `Progress ${token.slice(-3)}`);

before(async () => {
  if (skip) return;
  // Telegram's address is a port that refuses connections until the test opens a relay on it.
  telegramPort = await freePort();
  rig = await startSignedIn({
    email: 'deployer@example.com',
    viewport: { width: 1440, height: 900 },
    env: () => ({ TELEGRAM_API_ROOT: `http://127.0.0.1:${telegramPort}`, DEPLOY_TIMEOUT_SECONDS: '45' }),
  });
  ({ e, page } = rig);
  e.tg.addBot(BOT);
});

after(async () => {
  if (skip) return;
  relay?.close();
  await rig?.close();
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
  // Within 10 s the page says what the deploy waits for, in the worker's words: in the deployment's
  // status line (the Channels card may say it first, from the worker's own health).
  await page
    .locator('p[role="status"]', { hasText: /Waiting for Telegram: getMe failed: connection refused \(attempt \d+\)/ })
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
  assert.deepEqual(rig.pageErrors, []);
});

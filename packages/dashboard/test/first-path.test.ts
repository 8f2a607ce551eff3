// The first path on a phone without dead ends (issue 61), in Debian's Chromium at 390 px against
// the real control plane, agent host and fakes: a short password at sign-up gets a sentence beside
// the field; "Buy and go to checkout" lands on the checkout, which fits the phone; paying leads back
// to the slot, which activates and becomes active.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { MODEL_KEY, type E2E } from '../../server/test/helpers/e2e.js';
import { CHROMIUM, checkPage, launch, shot, skip } from './helpers/browser.js';
import { startDashboard } from './helpers/control-plane.js';
import { assertFits } from './helpers/phone.js';

const BOT = '7200000064:AAfirstPathPhoneBotTokenForBrowser_xy';

let e: E2E;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  if (skip) return;
  e = await startDashboard();
  browser = await launch(CHROMIUM!);
  const ctx = await browser.newContext({ baseURL: e.url, viewport: { width: 390, height: 844 } });
  page = await ctx.newPage();
  page.setDefaultTimeout(30_000);
  page.on('pageerror', (err) => pageErrors.push(String(err)));
});
after(async () => {
  if (skip) return;
  await browser?.close();
  await e?.close();
});

test('sign up (a short password gets a sentence) → buy → checkout that fits → pay → activate → active', {
  skip,
}, async () => {
  await page.goto('/signup');
  await page.getByLabel('Email').fill('first@example.com');
  const password = page.getByLabel('Password');
  await password.fill('short');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Password must be at least 10 characters long.').waitFor();
  assert.equal(await password.getAttribute('aria-invalid'), 'true');
  const shown = await page.locator('main').innerText();
  assert.doesNotMatch(shown, /must NOT|fewer than|Invalid request|INVALID_REQUEST/);
  await assertFits(page, 390, 'sign-up with its sentence');
  await checkPage(page, 'first-path-01-short-password');

  await password.fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  await page.getByLabel(/Bring your own key/).check();
  await page.getByRole('button', { name: 'Buy and go to checkout' }).click();
  await page.waitForURL(/\/checkout\//);
  await page.getByRole('heading', { name: 'Checkout' }).waitFor();
  await assertFits(page, 390, 'the checkout');
  await shot(page, 'first-path-02-checkout');
  await page.locator('#pay').click();
  await page.getByText('Payment complete').waitFor();
  await assertFits(page, 390, 'the paid page');
  await page.getByRole('link', { name: 'Continue in the dashboard' }).click();
  await page.waitForURL(/\/deployments\/[0-9a-f-]{36}$/);

  e.tg.addBot(BOT);
  await page.getByLabel('Name', { exact: true }).fill('First');
  await page
    .getByLabel('Model', { exact: true })
    .selectOption({ label: 'fakeai / fake-model-1 — $1 in / $2 out per 1M tokens · text' });
  await page.getByLabel('Telegram bot token').fill(BOT);
  await page.getByLabel('Model API key').fill(MODEL_KEY);
  await page.getByRole('button', { name: 'Activate' }).click();
  await page.getByRole('link', { name: 'Open the chat playground' }).waitFor();
  await assertFits(page, 390, 'the active deployment page');
  assert.deepEqual(pageErrors, []);
});

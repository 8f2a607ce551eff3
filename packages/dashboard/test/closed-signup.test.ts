// SIGNUP=closed: the sign-up page says why it is refused, and the operator's invitation link
// (`npx berth admin invite`) opens it for that email.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import type { E2E } from '../../server/test/helpers/e2e.js';
import { inviteToSignUp } from '../../server/src/accounts/invitations.js';
import { CHROMIUM, checkPage, launch, skip } from './helpers/browser.js';
import { startDashboard } from './helpers/control-plane.js';

let e: E2E;
let browser: Browser;

before(async () => {
  if (skip) return;
  e = await startDashboard(() => ({ SIGNUP: 'closed' }));
  browser = await launch(CHROMIUM!);
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await e?.close();
});

test('closed sign-up is explained; the invitation link signs carol up', { skip }, async () => {
  const ctx = await browser.newContext({ baseURL: e.url });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto('/signup');
  await page.getByLabel('Email').fill('carol@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page
    .getByRole('alert')
    .getByText(/needs an invitation/)
    .waitFor();
  // In words a person can act on: no error code (they are for developers; 0028).
  assert.doesNotMatch((await page.getByRole('alert').innerText()) ?? '', /SIGNUP_CLOSED/);

  const { url } = await inviteToSignUp(
    { invitations: e.runtime.services.accounts.invitations, now: () => new Date(), publicBaseUrl: e.url },
    'carol@example.com',
  );
  await page.goto(url);
  await page.getByText('You were invited').waitFor();
  await checkPage(page, '00-signup-invited');
  await page.getByLabel('Email').fill('carol@example.com');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/');
  await ctx.close();
});

// Self-serve billing with local payments (DESIGN §9.3), in Debian's Chromium against the real
// control plane and agent host: "Manage billing" on an active slot's page opens this server's billing
// page, whose "Cancel subscription" (confirmed) cancels the slot and stops the assistant, as a
// cancellation in Stripe's portal does; the deployment page then shows it. Desktop and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPage, skip } from './helpers/browser.js';
import { assertFits } from './helpers/phone.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000065:AAbillingPageBotTokenForBrowserTests_x';

const bed = signedInWithAssistant({ email: 'billing@example.com', bot: BOT, name: 'Billing bot' });

test('Manage billing → the billing page → cancel (confirmed) → canceled and stopped', { skip }, async () => {
  const { rig, id } = bed;
  const { page } = rig;
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Billing' });
  await card.getByRole('button', { name: 'Manage billing' }).click();
  await page.waitForURL(new RegExp(`/deployments/${id}/billing$`));
  await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
  await checkPage(page, 'billing-01-page');
  await page.setViewportSize({ width: 390, height: 844 });
  await assertFits(page, 390, 'the billing page');

  await page.getByRole('button', { name: 'Cancel subscription' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this subscription?' });
  await dialog.getByRole('button', { name: 'Cancel subscription' }).click();
  await page.getByText('The subscription is canceled; the assistant is stopped').waitFor();
  const rec = (await rig.api('GET', `/api/v1/assistants/${id}`)).json.data;
  assert.equal(rec.paymentStatus, 'canceled');
  for (let i = 0; (await rig.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status !== 'stopped'; i++) {
    assert.ok(i < 300, 'the assistant did not stop');
    await new Promise((r) => setTimeout(r, 100));
  }
  await page.getByRole('link', { name: 'Billing bot' }).click();
  await page.getByRole('region', { name: 'Billing' }).getByText('canceled').waitFor();
  assert.deepEqual(rig.pageErrors, []);
});

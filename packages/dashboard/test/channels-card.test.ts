// The "Channels" card in Debian's Chromium against the real control plane (DESIGN §9.1): the
// Telegram bot listed, WhatsApp added with write-only credentials, the webhook URL and verify token
// shown to paste into Meta's console (and the handshake with them works), then removed. The page
// passes axe under the server's CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPage, skip } from './helpers/browser.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000060:AAchannelsCardFakeBotTokenForBrowser_x';
const TOKEN = 'EAAGchannelsCardAccessTokenForBrowserTests01';
const SECRET = 'abcdef0123456789abcdef0123456789';

const bed = signedInWithAssistant({ email: 'channels@example.com', bot: BOT, name: 'Channels bot' });

test('add WhatsApp, see the webhook URL and verify token, remove it', { skip }, async () => {
  const { rig, id } = bed;
  const { page, api } = rig;
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Channels' });
  await card.getByRole('listitem').filter({ hasText: 'Telegram: connected' }).waitFor();
  await card.getByLabel('Phone number ID').fill('106540352242922');
  await card.getByLabel('Access token').fill(TOKEN);
  await card.getByLabel('App secret').fill(SECRET);
  await card.getByRole('button', { name: 'Add WhatsApp' }).click();
  await card.getByText('Callback URL', { exact: true }).waitFor();
  const url = await card.locator('dd code').first().textContent();
  const verifyToken = await card.locator('dd code').nth(1).textContent();
  assert.match(url!, /\/hooks\/whatsapp\/[0-9a-f-]{36}$/);
  assert.match(verifyToken!, /^[0-9a-f]{40}$/);
  assert.equal(await card.getByLabel('Access token').inputValue(), '');
  assert.ok(!(await page.content()).includes(TOKEN), 'the access token is on the page');
  await checkPage(page, 'channels-01-whatsapp-added');
  // What Meta does with them: the handshake echoes its challenge.
  const hs = await fetch(`${url}?hub.mode=subscribe&hub.challenge=4242&hub.verify_token=${verifyToken}`);
  assert.equal(await hs.text(), '4242');
  await card.getByRole('listitem').filter({ hasText: 'WhatsApp: connected' }).waitFor();

  // Back another day with new credentials only: the phone number ID field shows the stored one,
  // and that is what is sent.
  await page.reload();
  await card.getByRole('listitem').filter({ hasText: 'WhatsApp: connected' }).waitFor();
  assert.equal(await card.getByLabel('Phone number ID').inputValue(), '106540352242922');
  await card.getByLabel('Access token').fill(`${TOKEN}2`);
  await card.getByLabel('App secret').fill(SECRET.replace('a', 'b'));
  const answered = page.waitForResponse(
    (r) => r.url().endsWith('/channels/whatsapp') && r.request().method() === 'PUT',
  );
  await card.getByRole('button', { name: 'Replace WhatsApp credentials' }).click();
  const put = await answered;
  assert.equal(put.status(), 200, await put.text());
  assert.equal(await card.getByLabel('Access token').inputValue(), '');
  const replaced = await api('GET', `/api/v1/assistants/${id}/channels`);
  const wa = replaced.json.data.find((c: { type: string }) => c.type === 'whatsapp');
  assert.equal(wa.details.phoneNumberId, '106540352242922');

  await card.getByRole('button', { name: 'Remove WhatsApp' }).click();
  await card.getByRole('heading', { name: 'Add WhatsApp' }).waitFor();
  const listed = await api('GET', `/api/v1/assistants/${id}/channels`);
  assert.deepEqual(
    listed.json.data.map((c: { type: string }) => c.type),
    ['telegram'],
  );
});

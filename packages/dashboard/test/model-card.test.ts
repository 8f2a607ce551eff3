// The "Model" card (DESIGN §9.3) in Debian's Chromium against the real control plane, agent host
// and fakes: an active assistant's model is picked from the catalog and applied live, through
// PUT …/model; the next model call uses it and the status stays active. Desktop and 390 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkPage, skip } from './helpers/browser.js';
import { assertFits } from './helpers/phone.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000066:AAmodelCardBotTokenForBrowserTests_xyz';

const bed = signedInWithAssistant({ email: 'model@example.com', bot: BOT, name: 'Model bot' });

test('pick another model and apply it live: the next model call uses it, the status stays active', {
  skip,
}, async () => {
  const { rig, id } = bed;
  const { e, page } = rig;
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Model' });
  await card.getByText('Applies live').waitFor();
  await card
    .getByLabel('Model', { exact: true })
    .selectOption({ label: 'openrouter / router/fake-model — $1 in / $2 out per 1M tokens · text' });
  await card.getByRole('button', { name: 'Apply model' }).click();
  await card.getByText('Now answering with router/fake-model.').waitFor();
  const rec = (await rig.api('GET', `/api/v1/assistants/${id}`)).json.data;
  assert.equal(rec.modelProvider, 'openrouter');
  assert.equal(rec.modelId, 'router/fake-model');
  assert.equal(rec.status, 'active');
  e.tg.userSends(BOT, 808, { text: 'which model?' });
  await e.tg.waitForSent((m) => m.chat_id === 808);
  const call = e.provider.requests.findLast((r) =>
    r.body.messages.some((m: { content?: string }) => m.content === 'which model?'),
  );
  assert.equal(call?.body.model, 'router/fake-model');
  assert.equal((await rig.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
  await checkPage(page, 'model-card-01-applied');
  await page.setViewportSize({ width: 390, height: 844 });
  await card.getByRole('button', { name: 'Apply model' }).waitFor();
  await assertFits(page, 390, 'the deployment page with its model card');
  assert.deepEqual(rig.pageErrors, []);
});

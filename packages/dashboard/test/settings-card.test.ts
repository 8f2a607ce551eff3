// The "Personality and access" card in Debian's Chromium against the real control plane, agent
// host and fakes: edit the persona (the running bot's next model call uses it), restore an older
// version, preview an unsaved draft in the playground (only that conversation's model calls carry
// it; nothing is stored, Telegram and plain chats keep the saved persona) then discard or save it,
// and approve a stranger's pairing code. The page passes axe under the server's CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings } from '@berth/contracts/settings';
import { checkPage, skip } from './helpers/browser.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000051:AAsettingsCardFakeBotTokenForBrowser_x';

// An active assistant set up through the API with the key the user made in the Keys page.
const bed = signedInWithAssistant({ email: 'owner@example.com', bot: BOT, name: 'Card bot' });

test('edit the persona, restore a version, preview a draft, approve a pairing code', { skip }, async () => {
  const { rig, id } = bed;
  const { e, page, api } = rig;
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Personality and access' });
  const persona = card.getByLabel('Persona (system prompt)');
  await persona.waitFor();
  assert.equal(await persona.inputValue(), defaultSettings().systemPrompt);
  await checkPage(page, 'settings-01-card');

  await persona.fill('You are Captain Card.');
  await card.getByRole('button', { name: 'Apply persona and access' }).click();
  await card.getByText('Saved as version 2').waitFor();
  const asked = e.provider.requests.length;
  e.tg.userSends(BOT, 801, { text: 'who are you?' });
  await e.tg.waitForSent((m) => m.chat_id === 801);
  assert.equal(e.provider.requests[asked]!.body.messages[0].content, 'You are Captain Card.');

  await card.getByRole('button', { name: 'Restore version 1' }).click();
  await card.getByText('Saved as version 3').waitFor();
  assert.equal(
    (await api('GET', `/api/v1/assistants/${id}/settings`)).json.data.systemPrompt,
    defaultSettings().systemPrompt,
  );
  for (let i = 0; (await persona.inputValue()) !== defaultSettings().systemPrompt; i++) {
    assert.ok(i < 100, 'the form did not follow the restored version');
    await new Promise((r) => setTimeout(r, 50));
  }

  // Preview: the draft reaches this conversation's model calls only, and no version is written.
  const saved = defaultSettings().systemPrompt;
  const firstSystem = (n: number) => e.provider.requests.at(n)!.body.messages[0].content;
  await persona.fill('You are Preview Pirate.');
  await card.getByRole('button', { name: 'Preview in the playground' }).click();
  const bar = page.getByRole('region', { name: 'Unsaved settings' });
  await bar.getByText('still get version 3').waitFor();
  const box = page.getByRole('textbox', { name: 'Message', exact: true });
  const msgs = page.getByRole('list', { name: 'Messages' });
  await box.fill('ahoy');
  await box.press('Enter');
  await msgs.getByText('You said: ahoy').waitFor();
  assert.equal(firstSystem(-1), 'You are Preview Pirate.', 'the preview turn used the draft');
  await checkPage(page, 'settings-03-preview');
  const now = (await api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
  assert.equal(now.version, 3, 'a preview stores no version');
  assert.equal(now.systemPrompt, saved);
  e.tg.userSends(BOT, 803, { text: 'and me?' });
  await e.tg.waitForSent((m) => m.chat_id === 803);
  assert.equal(firstSystem(-1), saved, 'Telegram users keep the saved persona');
  const plain = await api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'plain' }],
  });
  assert.equal(plain.status, 200);
  assert.equal(firstSystem(-1), saved, 'a plain chat keeps the saved persona');
  // Only a signed-in session may preview: a key's request is refused before any model call.
  const asked2 = e.provider.requests.length;
  const byKey = await api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'sneak' }],
    berth_settings_preview: { ...defaultSettings(), systemPrompt: 'Key pirate' },
  });
  assert.equal(byKey.status, 400);
  assert.equal(byKey.json.error.code, 'INVALID_REQUEST');
  assert.equal(e.provider.requests.length, asked2, 'no model call for a refused preview');

  // Discard: back to the card, which shows the saved persona; nothing stored.
  await bar.getByRole('button', { name: 'Discard the draft' }).click();
  await persona.waitFor();
  for (let i = 0; (await persona.inputValue()) !== saved; i++) {
    assert.ok(i < 100, 'the form did not drop the discarded draft');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal((await api('GET', `/api/v1/assistants/${id}/settings`)).json.data.version, 3);

  // Preview again, come back to edit, then save from the playground: it becomes version 4.
  await persona.fill('You are Draft Captain.');
  await card.getByRole('button', { name: 'Preview in the playground' }).click();
  await bar.getByRole('link', { name: 'Keep editing' }).click();
  await persona.waitFor();
  for (let i = 0; (await persona.inputValue()) !== 'You are Draft Captain.'; i++) {
    assert.ok(i < 100, 'the form lost the draft on the way back');
    await new Promise((r) => setTimeout(r, 50));
  }
  await card.getByRole('button', { name: 'Preview in the playground' }).click();
  await bar.getByRole('button', { name: 'Save these settings' }).click();
  await page.getByText('Saved as version 4').waitFor();
  assert.equal(await bar.count(), 0, 'the playground left preview mode');
  assert.equal(
    (await api('GET', `/api/v1/assistants/${id}/settings`)).json.data.systemPrompt,
    'You are Draft Captain.',
  );
  await box.fill('hello captain');
  await box.press('Enter');
  await msgs.getByText('You said: hello captain').waitFor();
  assert.equal(firstSystem(-1), 'You are Draft Captain.', 'the saved draft is what plain chats use now');

  await page.goto(`/deployments/${id}`);
  await card.getByLabel('Who may talk to the bot').selectOption('pairing');
  await card.getByRole('button', { name: 'Apply persona and access' }).click();
  await card.getByText('Saved as version 5').waitFor();
  e.tg.userSends(BOT, 802, { text: 'may I?' });
  const notice = await e.tg.waitForSent((m) => m.chat_id === 802);
  const code = /\b([A-Z2-9]{8})\b/.exec(notice.text)![1]!;
  const approve = card.getByRole('button', { name: `Approve ${code}` });
  await approve.waitFor();
  await checkPage(page, 'settings-02-pairing');
  await approve.click();
  await card.getByText('Saved as version 6').waitFor();
  assert.deepEqual((await api('GET', `/api/v1/assistants/${id}/settings`)).json.data.access.telegramUserIds, [802]);
  await card.getByText('No pending pairing codes.').waitFor();

  // Deny: who asked and when are listed; the code goes, nobody is added, no version is written.
  e.tg.userSends(BOT, 804, { text: 'and me?' });
  const second = /\b([A-Z2-9]{8})\b/.exec((await e.tg.waitForSent((m) => m.chat_id === 804)).text)![1]!;
  const row = card.getByRole('row', { name: new RegExp(second) });
  await row.getByRole('cell', { name: '804', exact: true }).waitFor();
  await card.getByRole('button', { name: `Deny ${second}` }).click();
  await card.getByText('No pending pairing codes.').waitFor();
  const after = (await api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
  assert.equal(after.version, 6);
  assert.deepEqual(after.access.telegramUserIds, [802]);
  assert.deepEqual((await api('GET', `/api/v1/assistants/${id}/pairings`)).json.data, []);
  assert.deepEqual(rig.pageErrors, []);
});

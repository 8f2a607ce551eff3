// The "Usage this period" card in Debian's Chromium against the real control plane, agent host and
// fakes: the bars of the chart carry exactly GET …/usage's daily figures, the breakdown per end user
// and per model and its CSV are GET …/usage?groupBy='s rows, and "Block" adds a Telegram user to
// access.blockedTelegramUserIds. It fits a 390 px phone and passes axe under the server's CSP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { checkPage, shot, skip } from './helpers/browser.js';
import { assertFits } from './helpers/phone.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000061:AAusageCardFakeBotTokenForBrowserxx_x';

const bed = signedInWithAssistant({
  email: 'usage@example.com',
  bot: BOT,
  name: 'Usage bot',
  prepare: async ({ e }) => {
    for (const [from, text] of [
      [701, 'hello from 701'],
      [701, 'again from 701'],
      [702, 'hello from 702'],
    ] as const) {
      e.tg.userSends(BOT, from, { text });
      await e.tg.waitForSent((m) => m.chat_id === from && m.text.includes(text));
    }
  },
});

const usage = async (groupBy: string) =>
  (await bed.rig.api('GET', `/api/v1/assistants/${bed.id}/usage?groupBy=${groupBy}`)).json.data;
const usdText = (n: number) => `$${n.toFixed(n < 1 ? 4 : 2)}`;

test('the chart and the breakdowns show GET …/usage; CSV; block an end user; 390 px', { skip }, async () => {
  const { rig, id } = bed;
  const { page, api } = rig;
  const want = await usage('endUser');
  assert.equal(want.replies, 3);
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Usage this period' });
  await card.getByRole('img', { name: 'Cost per day this period' }).waitFor();

  const bars = await card.locator('svg rect').evaluateAll((rects) =>
    rects.map((r) => ({
      date: r.getAttribute('data-date'),
      costUsd: Number(r.getAttribute('data-cost')),
      replies: Number(r.getAttribute('data-replies')),
    })),
  );
  assert.deepEqual(
    bars,
    want.daily.map((d: { date: string; costUsd: number; replies: number }) => ({
      date: d.date,
      costUsd: d.costUsd,
      replies: d.replies,
    })),
  );
  await checkPage(page, 'usage-01-card');

  await card.getByLabel('Break down').selectOption('endUser');
  const table = card.getByRole('table', { name: 'Usage per end user' });
  await table.waitFor();
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent ?? '')),
    );
  assert.deepEqual(
    rows,
    want.groups.map(
      (g: { key: string; replies: number; promptTokens: number; completionTokens: number; costUsd: number }) => [
        `Telegram user ${g.key.slice(3)}`,
        String(g.replies),
        String(g.promptTokens),
        String(g.completionTokens),
        usdText(g.costUsd),
      ],
    ),
  );

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    card.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  const csv = (await readFile((await download.path())!, 'utf8')).trim().split('\r\n');
  assert.equal(csv[0], '"end user","replies","prompt tokens","completion tokens","cost (USD)"');
  assert.deepEqual(
    csv.slice(1),
    want.groups.map(
      (g: { key: string; replies: number; promptTokens: number; completionTokens: number; costUsd: number }) =>
        `"${g.key}","${g.replies}","${g.promptTokens}","${g.completionTokens}","${g.costUsd}"`,
    ),
  );

  await card.getByRole('button', { name: 'Block 701' }).click();
  await card.getByRole('button', { name: 'Unblock 701' }).waitFor();
  const settings = (await api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
  assert.deepEqual(settings.access.blockedTelegramUserIds, [701]);

  await card.getByLabel('Break down').selectOption('model');
  const models = await usage('model');
  await card.getByRole('table', { name: 'Usage per model' }).getByText(models.groups[0].key).waitFor();

  await page.setViewportSize({ width: 390, height: 844 });
  await card.getByLabel('Break down').selectOption('endUser');
  await card.getByRole('button', { name: 'Unblock 701' }).waitFor();
  await assertFits(page, 390, 'the deployment page with its usage card');
  // Not axe here: at 390 px the connect panel's code snippets scroll without keyboard focus (a
  // finding of the panel, which the Responses work edits; left to it and named in decision 0033).
  await shot(page, 'usage-02-phone');
  assert.deepEqual(rig.pageErrors, []);
});

// The dashboard in Debian's Chromium against the real control plane, agent host and fakes (the
// local checkout is paid by clicking its Pay button): sign up, keys, buy → pay → activate, live
// status, chat with tool progress, revoke, organization sharing. Every page passes axe (no serious
// or critical violation) under the server's CSP, and is photographed to test-results/dashboard/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { MODEL_KEY, type E2E } from '../../server/test/helpers/e2e.js';
import { showUser } from '../../server/src/index.js';
import { CHROMIUM, checkPage, launch, shot, skip } from './helpers/browser.js';
import { startDashboard } from './helpers/control-plane.js';

const BOT = '7200000041:AAdashboardFakeBotTokenForBrowserTest_x';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

let e: E2E;
let browser: Browser;
let alice: { ctx: BrowserContext; page: Page };
let key = '';
let deploymentId = '';
const cspViolations: string[] = [];
const pageErrors: string[] = [];
let broken: string | undefined;

async function newUser(): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await browser.newContext({ baseURL: e.url, viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text());
  });
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  return { ctx, page };
}

/** At a 390 px phone width the control stays inside the screen and the page does not scroll sideways. */
async function fitsPhone(page: Page, control: ReturnType<Page['locator']>, what: string) {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    const box = await control.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `${what}: the model select spans ${JSON.stringify(box)}`);
    await shot(page, `phone-model-select-${what.replaceAll(' ', '-')}`);
    const { wide, over } = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const over = [...doc.querySelectorAll('main *')]
        .filter((el: any) => el.getBoundingClientRect().right > 390)
        .map((el: any) => `${el.tagName}.${el.className}`)
        .slice(-5);
      return { wide: doc.documentElement.scrollWidth as number, over };
    });
    assert.ok(wide <= 390, `${what} is ${wide} px wide on a 390 px screen: ${over.join(', ')}`);
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

function nav(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name });
}

async function signUp(page: Page, email: string) {
  await page.getByRole('link', { name: 'Create one' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
}

before(async () => {
  if (skip) return;
  e = await startDashboard();
  e.tg.addBot(BOT);
  browser = await launch(CHROMIUM!);
  alice = await newUser();
});

after(async () => {
  if (skip) return;
  await browser?.close();
  await e?.close();
});

step('sign up (the API’s validation shown at the field), then an empty deployments list', async () => {
  const { page } = alice;
  await page.goto('/');
  await page.waitForURL(/\/signin\?next=%2F$/);
  await checkPage(page, '01-signin');
  await page.getByRole('link', { name: 'Create one' }).click();
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Create account' }).click();
  const password = page.getByLabel('Password');
  await assertAttribute(password, 'aria-invalid', 'true');
  await checkPage(page, '02-signup-error');
  await password.fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  await page.getByText('No deployments yet.').waitFor();
  await checkPage(page, '03-deployments-empty');

  // Sign out, and back in with the keyboard alone.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/signin/);
  await page.getByLabel('Email').waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.type('alice@example.com');
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
});

step('an API key is shown once, works with the API, and is never rendered again', async () => {
  const { page } = alice;
  await nav(page, 'API keys').click();
  await page.getByText('No active keys.').waitFor();
  await page.getByLabel('Name').fill('ci');
  await page.getByRole('button', { name: 'Create key' }).click();
  key = (await page.getByTestId('new-key').textContent()) ?? '';
  assert.ok(key.length > 20, key);
  const row = page.getByRole('row', { name: /ci/ });
  await row.getByText('never').waitFor();
  await checkPage(page, '04-keys-new-key');
  const res = await fetch(`${e.url}/api/v1/assistants`, { headers: { 'x-api-key': key } });
  assert.equal(res.status, 200);
  await page.reload();
  await page.getByRole('row', { name: /ci/ }).waitFor();
  assert.ok(!(await page.content()).includes(key), 'the key is not on the page after a reload');
  assert.ok(!(await page.content()).includes(key.slice(-12)), 'nor its tail');
});

step('buy → pay at the local checkout → come back → activate, with field errors, then live status', async () => {
  const { page } = alice;
  await nav(page, 'Deployments').click();
  await page.getByLabel(/Bring your own key/).check();
  // The picker says what each plan costs and includes before anything is bought.
  await page
    .getByTestId('price-managed')
    .getByText(/\$5\.00 of model credits a month/)
    .waitFor();
  assert.match((await page.getByTestId('price-byok').textContent()) ?? '', /^No charge on this server$/);
  await checkPage(page, '05-buy');
  // "Buy and go to checkout" goes to the checkout (issue 61: it landed on the slot's page).
  await page.getByRole('button', { name: 'Buy and go to checkout' }).click();
  await page.waitForURL(/\/checkout\//);
  deploymentId = (await page.locator('dd').first().textContent())!.trim();
  // The slot's page offers the same checkout for later (another device, a closed tab).
  await page.goto(`/deployments/${deploymentId}`);
  await page.getByRole('heading', { name: 'Set up this slot' }).waitFor();
  await checkPage(page, '06-pay-step');
  await page.getByRole('link', { name: 'Pay at checkout' }).click();
  await page.waitForURL(/\/checkout\//);
  await page.locator('#pay').click();
  await page.getByText('Payment complete').waitFor();
  await page.getByRole('link', { name: 'Continue in the dashboard' }).click();
  await page.waitForURL(new RegExp(`/deployments/${deploymentId}$`));

  await page.getByLabel('Name', { exact: true }).fill('Helper');
  // The model comes from the catalog: a select of the byok slot's models with prices and what
  // they can do, no text box for a model or a provider.
  const model = page.getByLabel('Model', { exact: true });
  assert.equal(await model.evaluate((el) => el.tagName), 'SELECT');
  assert.equal(await page.getByLabel('Model provider').count(), 0, 'the provider comes with the model');
  assert.deepEqual(await model.locator('option').allTextContents(), [
    'Choose a model',
    'fakeai / fake-model-1 — $1 in / $2 out per 1M tokens · text',
    'openrouter / router/fake-model — $1 in / $2 out per 1M tokens · text',
  ]);
  await fitsPhone(page, model, 'the activate form');
  await model.selectOption({ label: 'openrouter / router/fake-model — $1 in / $2 out per 1M tokens · text' });
  await page.getByLabel('Telegram bot token').fill('not-a-token');
  await page.getByLabel('Model API key').fill(MODEL_KEY);
  await page.getByRole('button', { name: 'Activate' }).click();
  const token = page.getByLabel('Telegram bot token');
  await assertAttribute(token, 'aria-invalid', 'true');
  await page.getByText(/does not look like a Telegram bot token/).waitFor();
  // In the form's words: no API field name, error code or request id for a mistake a person can fix.
  const shown = (await page.locator('main').innerText()) ?? '';
  assert.doesNotMatch(shown, /messengerBotToken|INVALID_INPUT|request [0-9a-f-]{36}/);
  await checkPage(page, '07-activate-field-error');
  await token.fill(BOT);
  await page.getByRole('button', { name: 'Activate' }).click();
  // No reload: the page polls until the worker is up.
  await page.locator('.badge-active').first().waitFor({ timeout: 30_000 });
  await page.getByRole('heading', { name: 'Helper', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Usage this period' }).waitFor();
  await page.getByRole('button', { name: 'Redeploy' }).waitFor();
  const row = await e.runtime.services.deployments.findById(deploymentId);
  assert.deepEqual([row?.modelProvider, row?.modelId], ['openrouter', 'router/fake-model'], 'the picked model');
  await checkPage(page, '08-deployment-active');
  await nav(page, 'Deployments').click();
  await page.getByRole('row', { name: /Helper.*active/ }).waitFor();
  await checkPage(page, '09-deployments-list');
});

step('the callback secret is fetched only on Reveal, is the account’s whsec_ secret, and hides again', async () => {
  const { page } = alice;
  await page.goto(`/deployments/${deploymentId}`);
  await page.getByRole('heading', { name: 'Details' }).waitFor();
  assert.ok(!(await page.content()).includes('whsec_'), 'not on the page before it is asked for');
  await page.getByRole('button', { name: 'Reveal' }).click();
  const secret = (await page.getByTestId('callback-secret').textContent()) ?? '';
  assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
  const { webhookSecret } = await showUser(
    { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
    'alice@example.com',
  );
  assert.equal(secret, webhookSecret, 'the secret her callbacks are signed with');
  await page.getByRole('button', { name: 'Copy secret' }).waitFor();
  await checkPage(page, '08b-callback-secret');
  await page.getByRole('button', { name: 'Hide' }).click();
  await page.getByRole('button', { name: 'Reveal' }).waitFor();
  assert.ok(!(await page.content()).includes(secret), 'gone from the page once hidden');
});

step('the connect panel: base URL, the bot’s t.me link, and a curl snippet that works as copied', async () => {
  const { page } = alice;
  await page.goto(`/deployments/${deploymentId}`);
  await page.getByRole('heading', { name: 'Use it' }).waitFor();
  const base = `${e.url}/api/v1/assistants/${deploymentId}`;
  assert.match((await page.getByTestId('base-url').textContent()) ?? '', new RegExp(base.replaceAll('.', '\\.')));
  const bot = page.getByRole('link', { name: /^@\w+_bot$/ });
  assert.match((await bot.getAttribute('href')) ?? '', /^https:\/\/t\.me\/\w+_bot$/);
  for (const title of ['openai (JavaScript)', 'openai Responses (JavaScript)', 'openai (Python)', 'Vercel AI SDK']) {
    await page.getByRole('tab', { name: title, exact: true }).click();
    assert.ok(((await page.getByRole('tabpanel').textContent()) ?? '').includes(base), `${title} names the base URL`);
  }
  await page.getByRole('tab', { name: 'curl', exact: true }).click();
  await checkPage(page, '08c-connect-panel');
  // The snippets as a person copies them, run by a shell with their key in BERTH_API_KEY.
  const run = async (tab: string, testId: string) => {
    await page.getByRole('tab', { name: tab, exact: true }).click();
    const curl = (await page.getByTestId(testId).textContent()) ?? '';
    assert.ok(!curl.includes(key), 'the page never prints a key');
    // Asynchronously: the control plane that must answer it runs in this process.
    const { execFile } = await import('node:child_process');
    const out = await new Promise<string>((done, fail) =>
      execFile('bash', ['-c', curl], { env: { ...process.env, BERTH_API_KEY: key }, timeout: 30_000 }, (err, stdout) =>
        err ? fail(err) : done(stdout),
      ),
    );
    return JSON.parse(out);
  };
  const reply = await run('curl', 'snippet-curl');
  assert.equal(reply.object, 'chat.completion');
  assert.equal(reply.choices[0].message.content, 'You said: Hello!');
  const response = await run('curl (Responses)', 'snippet-curl-responses');
  assert.equal(response.object, 'response');
  assert.equal(response.output[0].content[0].text, 'You said: Hello!');
});

step(
  'chat: tool progress shows while the tool runs, the session continues, a new conversation resets it, stop cancels',
  async () => {
    const { page } = alice;
    await page.goto(`/deployments/${deploymentId}`);
    await page.getByRole('link', { name: 'Open the chat playground' }).click();
    // The answer after the tool waits, so the progress must be on screen before it.
    e.provider.queue.push(
      { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
      { content: 'Four.', delayMs: 1500 },
    );
    // Exact: until the link's navigation lands, the deployment page's "Welcome message" and "Wait for
    // more messages" fields would match a plain 'Message' (a strict-mode error, seen in a rehearsal).
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    const msgs = page.getByRole('list', { name: 'Messages' });
    await box.fill('2+2?');
    await box.press('Enter');
    await page.getByRole('list', { name: 'Tool activity' }).getByText('🧮 Calculating 2+2').waitFor();
    assert.equal(await msgs.getByText('Four.').count(), 0, 'progress is shown before the answer arrives');
    await msgs.getByText('Four.').waitFor();

    await box.fill('my colour is teal');
    await box.press('Enter');
    await msgs.getByText('You said: my colour is teal').waitFor();
    await box.fill('which colour?');
    await box.press('Enter');
    await msgs.getByText('You said: which colour?').waitFor();
    const history = (n: number) => e.provider.requests.at(n)!.body.messages.map((m: { content: string }) => m.content);
    assert.ok(history(-1).includes('my colour is teal'), 'the session carried the earlier turn');
    await checkPage(page, '10-chat');

    // A reload: the transcript comes back from the assistant, which still remembers it.
    await page.reload();
    await msgs.getByText('You said: which colour?').waitFor();
    await msgs.getByText('my colour is teal', { exact: true }).waitFor();

    // Markdown is rendered; HTML and script links in an answer are not.
    e.provider.queue.push({
      content:
        '**bold** and `code`\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n<img src=x onerror="window.pwned=1"> [click](javascript:window.pwned=2)',
    });
    await box.fill('format something');
    await box.press('Enter');
    const last = msgs.getByRole('listitem').last();
    await last.locator('strong', { hasText: 'bold' }).waitFor();
    await last.locator('table td', { hasText: '2' }).waitFor();
    assert.equal(await last.locator('img').count(), 0, 'raw HTML is not rendered');
    assert.doesNotMatch((await last.getByRole('link', { name: 'click' }).getAttribute('href')) ?? '', /^javascript:/i);
    assert.equal(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned), undefined);
    await last.getByText(/\d+ tokens in, \d+ out/).waitFor();
    const curl = page.getByRole('button', { name: 'Copy as curl' });
    await curl.waitFor();
    await checkPage(page, '10b-chat-markdown');

    await page.getByRole('button', { name: 'New conversation' }).click();
    await box.fill('hello again');
    await box.press('Enter');
    await msgs.getByText('You said: hello again').waitFor();
    assert.ok(!history(-1).includes('my colour is teal'), 'a new conversation starts without the old turns');

    // Stopping an answer cancels the turn upstream too.
    e.provider.queue.push({ content: 'too late', delayMs: 10_000 });
    await box.fill('take your time');
    await box.press('Enter');
    await page.getByRole('button', { name: 'Stop answering' }).click();
    await msgs.getByText('(stopped)').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    for (let i = 0; i < 100 && !e.provider.requests.at(-1)!.aborted; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(e.provider.requests.at(-1)!.aborted, 'the model call was cancelled');
  },
);

step('the actions the state allows: stop (Escape cancels), update, redeploy', async () => {
  const { page } = alice;
  await page.goto(`/deployments/${deploymentId}`);
  assert.equal(await page.getByRole('button', { name: 'Update settings' }).count(), 0, 'no update while active');
  await page.getByRole('button', { name: 'Stop' }).click();
  const dialog = page.getByRole('dialog', { name: 'Stop this deployment?' });
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  const row = await e.runtime.services.deployments.findById(deploymentId);
  assert.equal(row?.status, 'active', 'Escape stopped nothing');
  await page.getByRole('button', { name: 'Stop' }).click();
  await dialog.getByRole('button', { name: 'Stop' }).click();
  await page.locator('.badge-stopped').first().waitFor();
  // A catalog that cannot be loaded is said plainly, with a retry, and no text box instead.
  await page.route('**/api/v1/catalog/models', (r) =>
    r.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({ error: { code: 'INTERNAL_ERROR', message: 'The catalog is unavailable.' } }),
    }),
  );
  await page.reload();
  await page.getByRole('button', { name: 'Update settings' }).click();
  await page.getByText('The model list could not be loaded.').waitFor();
  assert.equal(await page.getByLabel('Model', { exact: true }).count(), 0, 'no free-text fallback');
  await page.unroute('**/api/v1/catalog/models');
  await page.getByRole('button', { name: 'Try again' }).click();
  // The update form shows the current model selected.
  const model = page.getByLabel('Model', { exact: true });
  assert.equal(
    await model.evaluate(
      (el) => (el as unknown as { selectedOptions: { textContent: string }[] }).selectedOptions[0]?.textContent,
    ),
    'openrouter / router/fake-model — $1 in / $2 out per 1M tokens · text',
  );
  await fitsPhone(page, model, 'the update form');
  await page.getByLabel('Name', { exact: true }).fill('Helper 2');
  await page.getByLabel('New Telegram bot token').fill('still-not-a-token');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByText(/does not look like a Telegram bot token/).waitFor();
  await page.getByLabel('New Telegram bot token').fill('');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('heading', { name: 'Helper 2', level: 1 }).waitFor();
  const kept = await e.runtime.services.deployments.findById(deploymentId);
  assert.deepEqual([kept?.modelProvider, kept?.modelId], ['openrouter', 'router/fake-model'], 'the model kept');
  await page.getByRole('button', { name: 'Redeploy' }).click();
  await page
    .getByRole('dialog', { name: 'Redeploy this deployment?' })
    .getByRole('button', { name: 'Redeploy' })
    .click();
  await page.locator('.badge-active').first().waitFor({ timeout: 30_000 });
});

step('revoking the key asks first, then the key stops working', async () => {
  const { page } = alice;
  await nav(page, 'API keys').click();
  await page.getByRole('button', { name: 'Revoke ci' }).click();
  const dialog = page.getByRole('dialog', { name: /Revoke/ });
  await dialog.waitFor();
  await checkPage(page, '11-revoke-dialog');
  await dialog.getByRole('button', { name: 'Revoke' }).click();
  await page.getByText('No active keys.').waitFor();
  const res = await fetch(`${e.url}/api/v1/assistants`, { headers: { 'x-api-key': key } });
  assert.equal(res.status, 401);
});

step('organization sharing: an invitation link, membership, and deployments seen as the organization', async () => {
  const { page } = alice;
  await nav(page, 'Organizations').click();
  await page.getByText('You are not in any organization yet.').waitFor();
  await page.getByLabel('Organization name').fill('Acme');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const acme = page.getByRole('region', { name: /Acme/ });
  await acme.getByLabel('Email').fill('bob@example.com');
  await acme.getByRole('button', { name: 'Create invitation link' }).click();
  const link = (await page.getByTestId('invite-link').textContent()) ?? '';
  assert.match(link, /\/invite\//);
  await checkPage(page, '12-organizations');

  const bob = await newUser();
  await bob.page.goto(link);
  await bob.page.waitForURL(/\/signin\?next=/);
  await signUp(bob.page, 'bob@example.com');
  await bob.page.getByRole('button', { name: 'Accept invitation' }).click();
  await bob.page.waitForURL(/\/organizations$/);
  const members = bob.page.getByRole('region', { name: /Acme/ });
  await members.getByRole('row', { name: /alice@example\.com/ }).waitFor();
  await members.getByRole('row', { name: /bob@example\.com/ }).waitFor();

  // Alice, acting as Acme, buys a slot; Bob sees it as Acme, not in his personal list.
  await page.reload();
  await page.getByLabel('Acting as').selectOption({ label: 'Acme' });
  await page.getByText('No deployments yet.').waitFor();
  await page.getByRole('radio', { name: /^Managed/ }).check();
  await page.getByRole('button', { name: 'Buy and go to checkout' }).click();
  await page.waitForURL(/\/checkout\//);
  const shared = (await page.locator('dd').first().textContent())!.trim();
  await page.goBack();

  // Accepting made Bob act as Acme: he sees the shared slot; as himself he sees neither it nor Alice's.
  await nav(bob.page, 'Deployments').click();
  assert.equal(await bob.page.getByLabel('Acting as').inputValue(), await page.getByLabel('Acting as').inputValue());
  await bob.page.getByRole('link', { name: new RegExp(shared.slice(0, 8)) }).waitFor();
  await checkPage(bob.page, '13-deployments-as-organization');
  await bob.page.getByLabel('Acting as').selectOption({ index: 0 });
  await bob.page.getByText('No deployments yet.').waitFor();
  assert.equal(await bob.page.getByRole('link', { name: /Helper/ }).count(), 0, "Alice's personal slot stays hers");
  await bob.ctx.close();

  // Deleting asks first; then the slot is gone from the list.
  await page.goto(`/deployments/${shared}`);
  await page.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete this deployment?' });
  await checkPage(page, '14-delete-dialog');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.waitForURL(/\/$/);
  await page.getByText('No deployments yet.').waitFor();
});

step('dark mode and a phone-sized screen stay readable and accessible', async () => {
  const { page } = alice;
  await page.getByLabel('Acting as').selectOption({ index: 0 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/deployments/${deploymentId}`);
  await page.getByRole('heading', { name: 'Helper', level: 1 }).waitFor();
  await checkPage(page, '15-deployment-dark');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await page.getByRole('row', { name: /Helper/ }).waitFor();
  await checkPage(page, '16-deployments-phone-dark');
  await page.goto('/no/such/page');
  await page.getByRole('heading', { name: 'Page not found' }).waitFor();
  await shot(page, '17-not-found');
  await page.emulateMedia({ colorScheme: 'light' });

  // Every page fits a 390 px phone and a 1440 px desktop without sideways scrolling.
  const pages: Array<[string, string]> = [
    ['/', 'Deployments'],
    [`/deployments/${deploymentId}`, 'Helper'],
    [`/deployments/${deploymentId}/chat`, 'Chat'],
    ['/keys', 'API keys'],
    ['/organizations', 'Organizations'],
    ['/account', 'Account'],
  ];
  for (const [width, height] of [
    [390, 844],
    [1440, 900],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const [path, heading] of pages) {
      await page.goto(path);
      await page.getByRole('heading', { level: 1 }).filter({ hasText: heading }).first().waitFor();
      await page.waitForTimeout(300);
      const wide = await page.evaluate(
        () =>
          (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement
            .scrollWidth,
      );
      assert.ok(wide <= width, `${path} is ${wide} px wide on a ${width} px screen`);
      if (width === 390) await shot(page, `18-phone${path.replaceAll('/', '-') || '-home'}`);
    }
  }
  // The pages before signing in, too.
  const stranger = await browser.newContext({ baseURL: e.url });
  try {
    const p = await stranger.newPage();
    for (const [width, height] of [
      [390, 844],
      [1440, 900],
    ] as const) {
      await p.setViewportSize({ width, height });
      for (const [path, heading] of [
        ['/signin', 'Sign in'],
        ['/signup', 'Create your account'],
        ['/forgot-password', 'Set a new password'],
        ['/reset-password#token=x', 'Choose a new password'],
      ] as const) {
        await p.goto(path);
        await p.getByRole('heading', { name: heading, level: 1 }).waitFor();
        const wide = await p.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
              .documentElement.scrollWidth,
        );
        assert.ok(wide <= width, `${path} is ${wide} px wide on a ${width} px screen`);
      }
    }
  } finally {
    await stranger.close();
  }
  // On the phone the navigation sits behind one Menu button, not over three rows of header.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/keys');
  const header = await page.locator('header.top').boundingBox();
  assert.ok(header && header.height < 80, `the header is ${header?.height} px tall on a phone`);
  assert.equal(await nav(page, 'Organizations').isVisible(), false);
  await page.getByRole('button', { name: 'Menu' }).click();
  await nav(page, 'Organizations').click();
  await page.getByRole('heading', { name: 'Organizations', level: 1 }).waitFor();
  assert.equal(await nav(page, 'API keys').isVisible(), false, 'the menu folds again on a new page');
  assert.equal(await page.getByRole('button', { name: 'Menu' }).getAttribute('aria-expanded'), 'false');
  await checkPage(page, '19-phone-menu-closed');
  await page.setViewportSize({ width: 1280, height: 860 });
});

step('account: a wrong current password is shown at its field; the new password signs in', async () => {
  const { page } = alice;
  await nav(page, 'Account').click();
  await page.getByLabel('Current password').fill('not my password');
  await page.getByLabel('New password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await assertAttribute(page.getByLabel('Current password'), 'aria-invalid', 'true');
  await checkPage(page, '18-account-wrong-password');
  await page.getByLabel('Current password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.getByText('Password changed.').waitFor();
});

step('a session ended elsewhere sends the open page to sign in, by itself', async () => {
  const { page } = alice;
  await page.goto('/');
  await page.getByRole('row', { name: /Helper/ }).waitFor();
  const session = await page.request.get('/api/auth/session');
  const { csrfToken } = (await session.json()).data;
  const out = await page.request.post('/api/auth/logout-all', { headers: { 'x-berth-csrf': csrfToken } });
  assert.equal(out.status(), 204);
  // The list's next poll answers 401; no click, no reload.
  await page.waitForURL(/\/signin\?next=%2F$/);
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
});

step('no page broke the Content-Security-Policy or threw', async () => {
  assert.deepEqual(cspViolations, []);
  assert.deepEqual(pageErrors, []);
});

/** One step of the story: later steps need the earlier ones, so after a failure they skip (saying why). */
function step(name: string, fn: () => Promise<void>) {
  test(name, { skip }, async (t) => {
    if (broken) return t.skip(`an earlier step failed: ${broken}`);
    try {
      await fn();
    } catch (err) {
      broken = name;
      if (alice) await shot(alice.page, 'FAILED').catch(() => undefined);
      throw err;
    }
  });
}

async function assertAttribute(locator: ReturnType<Page['locator']>, name: string, value: string) {
  for (let i = 0; i < 100; i++) {
    if ((await locator.getAttribute(name)) === value) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${name} never became ${value}`);
}

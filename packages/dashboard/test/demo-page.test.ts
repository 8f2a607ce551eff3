// The `npm run demo` Telegram page (issue 62): it shows the chat as Telegram would, formatting
// included (a <b> is bold), and the answer while it is written, as the draft Telegram shows before
// the message replaces it. Outside the demo, no signed-in page asks for the demo's routes (they
// answered 404 on every page load). Debian's Chromium against the real demo process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { CHROMIUM, launch, skip } from './helpers/browser.js';
import { startSignedIn } from './helpers/signed-in.js';

const ROOT = resolve(import.meta.dirname, '../../..');

test('outside the demo no page asks for the demo routes', { skip }, async () => {
  const s = await startSignedIn({ email: 'nodemo@example.com' });
  try {
    const asked: string[] = [];
    s.page.on('request', (r) => {
      if (r.url().includes('/api/demo/')) asked.push(r.url());
    });
    for (const link of ['API keys', 'Deployments']) {
      await s.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
      await s.page.getByRole('heading', { level: 1 }).waitFor();
    }
    await s.page.goto('/demo');
    await s.page.getByText('This page works in the sandbox only').waitFor();
    assert.deepEqual(asked, []);
    assert.deepEqual(s.pageErrors, []);
  } finally {
    await s.close();
  }
});

test('the demo page shows formatting and the draft while the answer is written', {
  skip,
  timeout: 180_000,
}, async () => {
  const child = spawn(process.execPath, ['--conditions=berth-source', '--import', 'tsx', 'scripts/demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATA_DIR: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.resume();
  const browser = await launch(CHROMIUM!);
  try {
    const demo = JSON.parse(
      await new Promise<string>((done, fail) => {
        child.stdout.on('data', () => {
          const m = /^BERTH_DEMO (.+)$/m.exec(out);
          if (m) done(m[1]!);
        });
        child.once('exit', () => fail(new Error(`the demo did not start:\n${out}`)));
      }),
    ) as { url: string; email: string; password: string };
    const page = await (await browser.newContext({ baseURL: demo.url })).newPage();
    page.setDefaultTimeout(60_000);
    await page.goto('/signin');
    await page.getByLabel('Email').fill(demo.email);
    await page.getByLabel('Password').fill(demo.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
    await page.goto('/demo');
    await page.getByLabel('Message').fill('show me what you can do');
    await page.getByRole('button', { name: 'Send' }).click();
    // The draft while the demo model streams (about 40 ms a word), then the message in its place.
    const draft = page.locator('.tg-draft');
    await draft.waitFor();
    assert.ok((await draft.textContent())!.length > 0, 'the draft shows part of the answer');
    const bold = page.locator('.tg-bot strong', { hasText: 'Hello!' }).first();
    await page.locator('.tg-bot:not(.tg-draft) strong', { hasText: 'Hello!' }).first().waitFor();
    assert.equal(await bold.evaluate((el) => (globalThis as any).getComputedStyle(el).fontWeight as string), '700');
    await draft.waitFor({ state: 'detached' });
  } finally {
    await browser.close();
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
  }
});

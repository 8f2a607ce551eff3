// A dashboard test's set-up: the real control plane serving the built dashboard, Chromium on it, a
// user signed up through the pages with an API key made in the Keys page, and that key's calls.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { MODEL_KEY, type E2E } from '../../../server/test/helpers/e2e.js';
import { CHROMIUM, launch, skip } from './browser.js';
import { startDashboard } from './control-plane.js';

type Viewport = { width: number; height: number };
const DESKTOP: Viewport = { width: 1280, height: 900 };

export interface SignedIn {
  e: E2E;
  browser: Browser;
  page: Page;
  /** The API key the user made in the Keys page. */
  key: string;
  /** Errors the page threw, for a test to assert none. */
  pageErrors: string[];
  /** A JSON call with the user's key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** purchase → pay → activate with the user's key; the deployment id. */
  activate(token: string, name: string): Promise<string>;
  /** Polls the deployment's status until it is active (30 s at most). */
  waitActive(id: string): Promise<void>;
  /** The bot added to FakeTelegram, an assistant activated with it and active; its deployment id. */
  activeAssistant(token: string, name: string): Promise<string>;
  close(): Promise<void>;
}

export interface SignInOptions {
  email: string;
  /** Desktop (1280 × 900) unless given. */
  viewport?: Viewport;
  /** More control-plane env, given the port it will listen on. */
  env?: (port: number) => Record<string, string>;
}

export async function startSignedIn(opts: SignInOptions): Promise<SignedIn> {
  if (!CHROMIUM) throw new Error(skip || 'no Chromium');
  const e = await startDashboard(opts.env);
  const browser = await launch(CHROMIUM).catch(async (err: unknown) => {
    await e.close();
    throw err;
  });
  const close = async () => {
    await browser.close();
    await e.close();
  };
  try {
    return await signIn(e, browser, close, { email: opts.email, viewport: opts.viewport ?? DESKTOP });
  } catch (err) {
    await close();
    throw err;
  }
}

async function signIn(
  e: E2E,
  browser: Browser,
  close: () => Promise<void>,
  opts: { email: string; viewport: Viewport },
): Promise<SignedIn> {
  const ctx = await browser.newContext({ baseURL: e.url, viewport: opts.viewport });
  const page = await ctx.newPage();
  // CI runs test files side by side, each building the dashboard and driving its own Chromium: a
  // sign-up there once took longer than 15 s (deploy-progress, "Deployments" never seen in time).
  page.setDefaultTimeout(30_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  await page.goto('/');
  await page.getByRole('link', { name: 'Create one' }).click();
  await page.getByLabel('Email').fill(opts.email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Deployments', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('setup');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-key').textContent()) ?? '';

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${e.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }));

  const activate = async (token: string, name: string) => {
    const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
    const id = bought.json.data.deploymentId as string;
    await fetch(`${e.url}${new URL(bought.json.data.checkoutUrl).pathname}/complete`, { method: 'POST' });
    const act = await api('POST', `/api/v1/assistants/${id}/activate`, {
      name,
      modelProvider: 'fakeai',
      modelId: 'fake-model-1',
      messengerBotToken: token,
      modelApiKey: MODEL_KEY,
    });
    assert.equal(act.status, 200, JSON.stringify(act.json));
    return id;
  };

  const waitActive = async (id: string) => {
    for (let i = 0; (await api('GET', `/api/v1/assistants/${id}/status`)).json.data.status !== 'active'; i++) {
      assert.ok(i < 300, 'the assistant did not become active');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  const activeAssistant = async (token: string, name: string) => {
    e.tg.addBot(token);
    const id = await activate(token, name);
    await waitActive(id);
    return id;
  };

  return { e, browser, page, key, pageErrors, api, activate, waitActive, activeAssistant, close };
}

/**
 * A test file's rig as its before and after hooks (none starts without Chromium): signed in, with
 * one active assistant on `bot`, then `prepare` (the file's own set-up on it). One `before`: on
 * Node 20 top-level before hooks start at once, so a second one could not wait for this.
 */
export function signedInWithAssistant(
  opts: SignInOptions & { bot: string; name: string; prepare?: (rig: SignedIn) => Promise<void> },
): {
  readonly rig: SignedIn;
  readonly id: string;
} {
  let rig: SignedIn | undefined;
  let id = '';
  before(async () => {
    if (skip) return;
    rig = await startSignedIn(opts);
    id = await rig.activeAssistant(opts.bot, opts.name);
    await opts.prepare?.(rig);
  });
  after(async () => {
    if (skip) return;
    await rig?.close();
  });
  return {
    get rig() {
      if (!rig) throw new Error('the rig starts in before()');
      return rig;
    },
    get id() {
      return id;
    },
  };
}

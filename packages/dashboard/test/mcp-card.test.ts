// The "Tools from your MCP servers" card in Debian's Chromium against the real control plane, agent
// host and an SDK-built MCP server on loopback (MCP_ALLOW_INSECURE=true): add a server with a
// header (its tools show, the header never does), see it offered to the model, remove it. The
// page passes axe under the server's CSP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { FakeMcpServer } from '../../testkit/src/mcp/index.js';
import type { E2E } from '../../server/test/helpers/e2e.js';
import { checkPage, skip } from './helpers/browser.js';
import { startSignedIn, type SignedIn } from './helpers/signed-in.js';

const BOT = '7200000061:AAmcpCardFakeBotTokenForTheBrowserTest';
const SECRET = 'Bearer card-secret-0123456789';

let rig: SignedIn;
let e: E2E;
let page: Page;
let api: SignedIn['api'];
let id = '';
const mcp = new FakeMcpServer();

before(async () => {
  if (skip) return;
  await mcp.start();
  rig = await startSignedIn({ email: 'owner@example.com', env: () => ({ MCP_ALLOW_INSECURE: 'true' }) });
  ({ e, page, api } = rig);
  id = await rig.activeAssistant(BOT, 'Tools bot');
});

after(async () => {
  if (skip) return;
  await rig?.close();
  await mcp.stop();
});

test('add a server with a header, its tools reach the model, remove it', { skip }, async () => {
  await page.goto(`/deployments/${id}`);
  const card = page.getByRole('region', { name: 'Tools from your MCP servers' });
  await card.getByText('No MCP servers').waitFor();
  await card.getByLabel('Name (lower-case letters, digits, _ and -)').fill('desk');
  await card.getByLabel('Server URL (https)').fill(mcp.url);
  await card.getByLabel('Header value (an API key or bearer token; never shown again)').fill(SECRET);
  await card.getByRole('button', { name: 'Save server' }).click();
  await card.getByRole('cell', { name: 'echo, hang, flood, image, fail' }).waitFor();
  await card.getByRole('cell', { name: 'connected' }).waitFor();
  assert.ok(!(await page.content()).includes('card-secret'), 'the header is never shown');
  await checkPage(page, 'mcp-01-card');

  e.provider.queue.push(
    { toolCalls: [{ name: 'mcp_desk_echo', arguments: { text: 'from the card' } }] },
    { content: 'Done.' },
  );
  e.tg.userSends(BOT, 901, { text: 'use the desk' });
  await e.tg.waitForSent((m) => m.chat_id === 901 && m.text.includes('Done.'));
  assert.equal(mcp.calls.at(-1)?.authorization, SECRET);

  await card.getByRole('button', { name: 'Remove desk' }).click();
  await card.getByText('No MCP servers').waitFor();
  assert.equal((await api('GET', `/api/v1/assistants/${id}/mcp-servers`)).json.data.length, 0);
});

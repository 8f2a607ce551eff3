// The "Tools from your MCP servers" card in Debian's Chromium against the real control plane, agent
// host and an SDK-built MCP server on loopback (MCP_ALLOW_INSECURE=true): add a server with a
// header (its tools show, the header never does), see it offered to the model, remove it. The
// page passes axe under the server's CSP.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeMcpServer } from '../../testkit/src/mcp/index.js';
import { checkPage, skip } from './helpers/browser.js';
import { signedInWithAssistant } from './helpers/signed-in.js';

const BOT = '7200000061:AAmcpCardFakeBotTokenForTheBrowserTest';
const SECRET = 'Bearer card-secret-0123456789';

const mcp = new FakeMcpServer();

const bed = signedInWithAssistant({
  email: 'owner@example.com',
  env: () => ({ MCP_ALLOW_INSECURE: 'true' }),
  bot: BOT,
  name: 'Tools bot',
  prepare: async () => {
    await mcp.start();
  },
});
// Registered after the rig's hooks: the rig closes before the server stops.
after(async () => {
  if (skip) return;
  await mcp.stop();
});

test('add a server with a header, its tools reach the model, remove it', { skip }, async () => {
  const { rig, id } = bed;
  const { e, page, api } = rig;
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

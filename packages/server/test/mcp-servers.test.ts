// Owner tools over MCP through the whole product (DESIGN §9.2): the control plane stores an
// assistant's server (headers sealed), pushes it to the real agent host process, which connects
// with the official SDK to an SDK-built server on loopback (MCP_ALLOW_INSECURE=true); the model's
// request carries its tools, a call reaches the server with the owner's headers and its result the
// next model call; a DELETE removes the tools live. The headers show up in no answer and no log.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeMcpServer } from '@berth/testkit/mcp';
import { runBerthWithKey } from './helpers/cli.js';
import { activeBot, startE2E, type E2E } from './helpers/e2e.js';
import { until } from './helpers/until.js';

const BOT = '7300000031:AAmcpServersBotTokenForTheE2eTests_xyz';
const SECRET = 'Bearer mcp-owner-secret-0123456789';
let e: E2E;
let id: string;
const mcp = new FakeMcpServer();

before(async () => {
  await mcp.start();
  e = await startE2E({ MCP_ALLOW_INSECURE: 'true' });
  id = await activeBot(e, BOT);
});
after(async () => {
  await e.close();
  await mcp.stop();
});

const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);

/** A Telegram message's first model request (and the one after it, when a tool ran). */
async function ask(chat: number, text: string) {
  const since = e.provider.requests.length;
  e.tg.userSends(BOT, chat, { text });
  const first = await until('the model call', () =>
    e.provider.requests.slice(since).find((r) => r.body.messages.some((m: any) => m.content === text)),
  );
  return { first: first.body, since };
}

test('PUT connects the server live: its tools reach the model, a call carries the owner headers, headers never shown', async () => {
  const put = await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/tickets`, {
    url: mcp.url,
    headers: { Authorization: SECRET },
    enabledTools: ['echo', 'fail'],
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(put.json.data.status, 'connected', put.json.data.statusMessage);
  assert.deepEqual(
    put.json.data.tools.filter((t: any) => t.enabled).map((t: any) => t.name),
    ['echo', 'fail'],
  );
  assert.ok(!put.text.includes('mcp-owner-secret'));

  e.provider.queue.push(
    { toolCalls: [{ name: 'mcp_tickets_echo', arguments: { text: 'ticket 42' } }] },
    { content: 'Ticket 42 is open.' },
  );
  const { first, since } = await ask(701, 'how is ticket 42?');
  assert.ok(offered(first).includes('mcp_tickets_echo'), `offered: ${offered(first)}`);
  assert.ok(!offered(first).includes('mcp_tickets_hang'), 'only the enabled tools');
  await e.tg.waitForSent((m) => m.chat_id === 701 && m.text.includes('Ticket 42 is open.'));
  const second = e.provider.requests.slice(since).find((r) => r.body.messages.some((m: any) => m.role === 'tool'));
  assert.ok(second, 'a model call after the tool ran');
  assert.deepEqual(
    second.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content),
    ['echo: ticket 42'],
  );
  assert.equal(mcp.calls.at(-1)?.authorization, SECRET);

  const list = await e.api('GET', `/api/v1/assistants/${id}/mcp-servers`);
  assert.equal(list.status, 200);
  assert.equal(list.json.data[0].name, 'tickets');
  assert.equal(list.json.data[0].status, 'connected');
  assert.ok(!list.text.includes('mcp-owner-secret'));

  // Sealed at rest, in no log of either process.
  assert.ok(![...e.logs, ...e.agentLogs].some((l) => l.includes('mcp-owner-secret')));
});

test("the owner reads each server's tool calls and errors in GET …/mcp-servers", async () => {
  const counts = async () => {
    const [t] = (await e.api('GET', `/api/v1/assistants/${id}/mcp-servers`)).json.data;
    return { calls: t.calls, errors: t.errors };
  };
  assert.deepEqual(await counts(), { calls: 1, errors: 0 }, 'the echo of the test before');
  e.provider.queue.push({ toolCalls: [{ name: 'mcp_tickets_fail', arguments: {} }] }, { content: 'It failed.' });
  await ask(704, 'try the failing one');
  await e.tg.waitForSent((m) => m.chat_id === 704 && m.text.includes('It failed.'));
  assert.deepEqual(await counts(), { calls: 2, errors: 1 });
});

test('a replace without headers keeps them; DELETE removes the tools before the next turn', async () => {
  const put = await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/tickets`, { url: mcp.url });
  assert.equal(put.status, 200, put.text);
  e.provider.queue.push(
    { toolCalls: [{ name: 'mcp_tickets_echo', arguments: { text: 'again' } }] },
    { content: 'ok again' },
  );
  await ask(702, 'again please');
  await e.tg.waitForSent((m) => m.chat_id === 702 && m.text.includes('ok again'));
  assert.equal(mcp.calls.at(-1)?.authorization, SECRET);

  const del = await e.api('DELETE', `/api/v1/assistants/${id}/mcp-servers/tickets`);
  assert.equal(del.status, 200, del.text);
  assert.deepEqual(del.json.data, { success: true });
  const { first } = await ask(703, 'anything left?');
  assert.deepEqual(
    offered(first).filter((n) => n.startsWith('mcp_')),
    [],
  );
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/mcp-servers`)).json.data.length, 0);
  assert.equal((await e.api('DELETE', `/api/v1/assistants/${id}/mcp-servers/tickets`)).status, 404);
});

test('a refused end user causes no model call and no MCP call', async () => {
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/gate`, { url: mcp.url })).status, 200);
  const settings = (await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data;
  const { version: _v, updatedAt: _u, ...doc } = settings;
  const allow = await e.api('PUT', `/api/v1/assistants/${id}/settings`, {
    ...doc,
    access: { ...doc.access, mode: 'allowlist', telegramUserIds: [801] },
  });
  assert.equal(allow.status, 200, allow.text);
  const calls = mcp.calls.length;
  const asked = e.provider.requests.length;
  // Scripted, as if the model would call the tool: it is never asked.
  e.provider.queue.push({ toolCalls: [{ name: 'mcp_gate_echo', arguments: { text: 'leak' } }] }, { content: 'no' });
  e.tg.userSends(BOT, 802, { text: 'call the tool' });
  await e.tg.waitForSent((m) => m.chat_id === 802 && /only talks to/.test(m.text));
  assert.equal(e.provider.requests.length, asked);
  assert.equal(mcp.calls.length, calls);
  e.provider.queue.length = 0;
  await e.api('PUT', `/api/v1/assistants/${id}/settings`, doc);
  await e.api('DELETE', `/api/v1/assistants/${id}/mcp-servers/gate`);
});

test('bad input: a bad name or URL is a 400, a sixth server a 409, an unknown assistant a 404', async () => {
  const bad = await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/Bad%20Name`, { url: mcp.url });
  assert.equal(bad.status, 400, bad.text);
  const url = await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/x`, { url: 'ftp://example.com/mcp' });
  assert.equal(url.status, 400, url.text);
  assert.match(url.json.error.message, /url must use https/);
  for (let i = 0; i < 5; i++)
    assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/s${i}`, { url: mcp.url })).status, 200);
  const sixth = await e.api('PUT', `/api/v1/assistants/${id}/mcp-servers/s5`, { url: mcp.url });
  assert.equal(sixth.status, 409, sixth.text);
  assert.equal(sixth.json.error.code, 'QUOTA_EXCEEDED');
  const other = await e.api('GET', '/api/v1/assistants/00000000-0000-4000-8000-000000000000/mcp-servers');
  assert.equal(other.status, 404);
  for (let i = 0; i < 5; i++) await e.api('DELETE', `/api/v1/assistants/${id}/mcp-servers/s${i}`);
});

test('berth assistants mcp add|list|tools|remove: the header read from stdin, never printed', async () => {
  const configHome = mkdtempSync(join(tmpdir(), 'berth-cli-mcp-'));
  const berth = (args: string[], input?: string) => runBerthWithKey(e, configHome, args, input);
  try {
    const add = await berth(
      ['assistants', 'mcp', 'add', id, 'desk', '--url', mcp.url, '--header', '-', '--tools', 'echo'],
      `Authorization: ${SECRET}\n`,
    );
    assert.equal(add.status, 0, add.stderr);
    assert.match(add.stdout, /desk: connected; 1 tools offered as mcp_desk_<tool>/);
    const list = await berth(['assistants', 'mcp', 'list', id]);
    assert.match(list.stdout, /desk\s+connected\s+1\/5/);
    const tools = await berth(['assistants', 'mcp', 'tools', id, 'desk']);
    assert.match(tools.stdout, /echo\s+yes/);
    assert.match(tools.stdout, /hang\s+no/);
    for (const out of [add, list, tools]) assert.ok(!`${out.stdout}${out.stderr}`.includes('mcp-owner-secret'));
    const removed = await berth(['assistants', 'mcp', 'remove', id, 'desk']);
    assert.equal(removed.status, 0, removed.stderr);
    assert.equal((await e.api('GET', `/api/v1/assistants/${id}/mcp-servers`)).json.data.length, 0);
  } finally {
    rmSync(configHome, { recursive: true, force: true });
  }
});

// Owner tools over MCP (DESIGN §9.2) against real MCP servers on loopback: the reference server
// from the npm registry (@modelcontextprotocol/server-everything, streamableHttp and old sse) and
// an SDK-built server that records its calls and misbehaves (packages/testkit/src/mcp).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { FakeMcpServer, startEverythingServer, type EverythingServer } from '@berth/testkit/mcp';
import { MODEL_KEY, fakeModel } from './helpers/serve.js';
import { hostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-mcp-tests-0123456789';
const GW = 'gateway-mcp-tests-0123456789';
const bed = hostBed(ADMIN, 'berth-mcp-', { allowInsecureMcp: true });
const { provider, host } = bed;
let everything: EverythingServer;
let sseEverything: EverythingServer;
const fake = new FakeMcpServer();

before(async () => {
  [everything, sseEverything] = await Promise.all([startEverythingServer(), startEverythingServer('sse')]);
  await fake.start();
});
after(async () => {
  await Promise.all([everything.stop(), sseEverything.stop(), fake.stop()]);
});

const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function putAgent(name: string, body: object = {}) {
  const res = await request(`${bed.url}/agents/${name}`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify({
      gatewayToken: GW,
      model: fakeModel(provider.url),
      ...body,
    }),
  });
  assert.equal(res.statusCode, 200, await res.body.text());
}

async function putServers(name: string, servers: object[]) {
  const res = await request(`${bed.url}/agents/${name}/mcp-servers`, {
    method: 'PUT',
    headers: auth,
    body: JSON.stringify(servers),
  });
  const body = (await res.body.json()) as any;
  return { status: res.statusCode, body };
}

/** A streamed chat turn: the SSE text, and the model requests it caused. */
async function chat(name: string, text: string) {
  const before = provider.requests.length;
  const res = await request(`${bed.url}/agents/${name}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GW}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', stream: true, messages: [{ role: 'user', content: text }] }),
  });
  assert.equal(res.statusCode, 200);
  const sse = await res.body.text();
  return { sse, requests: provider.requests.slice(before).map((r) => r.body) };
}

const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);
const toolMessages = (body: any): string[] =>
  body.messages.filter((m: any) => m.role === 'tool').map((m: any) => String(m.content));

test("the reference server's tools reach the model; a call's result reaches the next model call, shown as progress", async () => {
  await putAgent('ev');
  const put = await putServers('ev', [{ name: 'ev', url: everything.url }]);
  assert.equal(put.status, 200);
  const view = put.body.servers[0];
  assert.equal(view.status, 'connected', view.statusMessage);
  assert.ok(view.tools.some((t: any) => t.name === 'echo' && t.enabled && /Echo/i.test(t.description)));
  assert.equal(JSON.stringify(put.body).includes('headers'), false);

  provider.queue.push({ toolCalls: [{ name: 'mcp_ev_echo', arguments: { message: 'ahoy' } }] }, { content: 'Done.' });
  const { sse, requests } = await chat('ev', 'echo ahoy');
  assert.ok(offered(requests[0]).includes('mcp_ev_echo'), `offered: ${offered(requests[0])}`);
  assert.ok(offered(requests[0]).includes('calculator'), 'the built-ins stay');
  assert.deepEqual(toolMessages(requests[1]), ['Echo: ahoy']);
  assert.match(sse, /event: assistant\.tool\.progress\ndata: .*"tool":"mcp_ev_echo"/);
  assert.match(sse, /Done\./);
  // The untrusted description is a tool description, never part of the system message.
  assert.ok(!String(requests[0].messages[0].content).includes('Echoes back'));
});

test('a server of the older HTTP+SSE transport is reached by falling back to it', async () => {
  await putAgent('old-sse');
  const put = await putServers('old-sse', [{ name: 'legacy', url: sseEverything.url }]);
  assert.equal(put.body.servers[0].status, 'connected', put.body.servers[0].statusMessage);
  provider.queue.push({ toolCalls: [{ name: 'mcp_legacy_echo', arguments: { message: 'old' } }] }, { content: 'ok' });
  const { requests } = await chat('old-sse', 'go');
  assert.deepEqual(toolMessages(requests[1]), ['Echo: old']);
});

test('removing a server removes its tools from the next turn; enabledTools narrows what is offered', async () => {
  await putAgent('narrow');
  await putServers('narrow', [{ name: 'f', url: fake.url, enabledTools: ['echo'] }]);
  let { requests } = await chat('narrow', 'hi');
  assert.deepEqual(
    offered(requests[0]).filter((n) => n.startsWith('mcp_')),
    ['mcp_f_echo'],
  );
  await putServers('narrow', []);
  ({ requests } = await chat('narrow', 'hi'));
  assert.deepEqual(
    offered(requests[0]).filter((n) => n.startsWith('mcp_')),
    [],
  );
});

test("two assistants' sessions are their own: each server call carries its own assistant's session and headers", async () => {
  await putAgent('tenant-a');
  await putAgent('tenant-b');
  await putServers('tenant-a', [{ name: 'f', url: fake.url, headers: { Authorization: 'Bearer key-of-a' } }]);
  await putServers('tenant-b', [{ name: 'f', url: fake.url, headers: { Authorization: 'Bearer key-of-b' } }]);
  const from = fake.calls.length;
  provider.queue.push({ toolCalls: [{ name: 'mcp_f_echo', arguments: { text: 'a' } }] }, { content: 'a done' });
  await chat('tenant-a', 'a');
  provider.queue.push({ toolCalls: [{ name: 'mcp_f_echo', arguments: { text: 'b' } }] }, { content: 'b done' });
  await chat('tenant-b', 'b');
  const calls = fake.calls.slice(from);
  assert.deepEqual(
    calls.map((c) => [c.arguments.text, c.authorization]),
    [
      ['a', 'Bearer key-of-a'],
      ['b', 'Bearer key-of-b'],
    ],
  );
  assert.notEqual(calls[0]!.session, calls[1]!.session);
});

test('notifications/tools/list_changed: a tool the server adds is offered on the next turn', async () => {
  const live = await new FakeMcpServer([{ name: 'first' }]).start();
  try {
    await putAgent('changing');
    await putServers('changing', [{ name: 'live', url: live.url }]);
    await live.setTools([{ name: 'first' }, { name: 'second', description: 'Added later.' }]);
    const agent = host.get('changing')!;
    await waitFor(() => agent.mcpView().servers[0]!.tools.length === 2, 'the changed list');
    const { requests } = await chat('changing', 'hi');
    assert.deepEqual(
      offered(requests[0]).filter((n) => n.startsWith('mcp_')),
      ['mcp_live_first', 'mcp_live_second'],
    );
  } finally {
    await live.stop();
  }
});

test('a failing, hanging or flooding tool is a tool error for the model, never a failed turn', async () => {
  await putAgent('hostile');
  await putServers('hostile', [{ name: 'h', url: fake.url }]);
  provider.queue.push(
    {
      toolCalls: [
        { name: 'mcp_h_fail', arguments: {} },
        { name: 'mcp_h_flood', arguments: {} },
      ],
    },
    { content: 'Sorry.' },
  );
  const { sse, requests } = await chat('hostile', 'go');
  const [failed, flooded] = toolMessages(requests[1]);
  assert.match(failed!, /ticket system is down/);
  assert.match(flooded!, /more than 4 MB|failed/);
  assert.match(sse, /Sorry\./);
  const view = host.get('hostile')!.mcpView();
  assert.equal(view.calls.failed >= 2, true, JSON.stringify(view.calls));
});

test("a tool's image reaches a vision model as an image, and any other model as a sentence saying it was left out", async () => {
  await putAgent('sees', {
    model: { provider: 'fakeai', baseUrl: provider.url, modelId: 'v', apiKey: MODEL_KEY, capabilities: ['vision'] },
  });
  await putAgent('blind');
  for (const name of ['sees', 'blind'])
    await putServers(name, [{ name: 'pics', url: fake.url, enabledTools: ['image'] }]);

  provider.queue.push({ toolCalls: [{ name: 'mcp_pics_image', arguments: {} }] }, { content: 'A red square.' });
  let { requests } = await chat('sees', 'show me');
  const parts = requests[1].messages.at(-1).content;
  assert.equal(parts[1].type, 'image_url');
  assert.match(parts[1].image_url.url, /^data:image\/png;base64,/);

  provider.queue.push({ toolCalls: [{ name: 'mcp_pics_image', arguments: {} }] }, { content: 'No picture.' });
  ({ requests } = await chat('blind', 'show me'));
  assert.match(
    toolMessages(requests[1])[0]!,
    /Here is the picture\.\n\[1 part of the result not shown \(this model does not read images\)\]/,
  );
  assert.ok(!JSON.stringify(requests[1].messages).includes('data:image'));
});

async function waitFor(cond: () => boolean, what: string, ms = 10_000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

// An owner's MCP server is code Berth does not control (DESIGN §9.2): addresses that are not public
// are refused (also through a name that resolves there, or a redirect), and a server that hangs,
// floods, lists too much, names a tool with 10,000 characters, sends a JSON Schema bomb or speaks
// another protocol version costs its own assistant a tool error or a statusMessage, nothing else.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeMcpServer } from '@berth/testkit/mcp';
import { isPublicAddress } from '@berth/contracts/net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServers } from '../src/tools/mcp/servers.js';
import { guardedFetch } from '../src/tools/mcp/guarded-fetch.js';
import { anyAddress, publicOnly, type McpNetworkPolicy } from '../src/tools/mcp/policy.js';
import type { AnyTool } from '../src/tools/tool.js';

const fake = new FakeMcpServer();
before(() => fake.start());
after(() => fake.stop());

async function connect(
  url: string,
  policy: McpNetworkPolicy = anyAddress,
  extra: Partial<ConstructorParameters<typeof McpServers>[0]> = {},
) {
  const servers = new McpServers({ policy, vision: () => false, reserved: () => new Set(), ...extra });
  await servers.apply([{ name: 's', url }]);
  await servers.settled();
  return servers;
}

const run = (tool: AnyTool | undefined, args: Record<string, unknown> = {}) =>
  tool!.run(args, new AbortController().signal).then(
    (out) => ({ ok: true, text: typeof out === 'string' ? out : out.text }),
    (err: Error) => ({ ok: false, text: err.message }),
  );

test('http, private, loopback, link-local and IPv6-mapped URLs are refused without MCP_ALLOW_INSECURE', async () => {
  const port = new URL(fake.url).port;
  const sessions = fake.sessions.length;
  for (const url of [
    fake.url,
    `https://127.0.0.1:${port}/mcp`,
    'https://10.0.0.7/mcp',
    'https://169.254.169.254/mcp',
    `https://[::ffff:127.0.0.1]:${port}/mcp`,
    `https://[::1]:${port}/mcp`,
    `https://localhost:${port}/mcp`,
  ]) {
    const servers = await connect(url, publicOnly);
    const [state] = servers.states();
    assert.equal(state!.status, 'failed', url);
    assert.match(state!.statusMessage!, /refused/, url);
    assert.equal(servers.tools.length, 0);
    await servers.close();
  }
  assert.equal(fake.sessions.length, sessions, 'the server never saw a session');
});

test('plain http is refused unless MCP_ALLOW_INSECURE, whatever the address', async () => {
  const sessions = fake.sessions.length;
  const servers = await connect(fake.url, { httpsOnly: true, addressAllowed: () => true });
  assert.equal(servers.states()[0]!.status, 'failed');
  assert.match(servers.states()[0]!.statusMessage!, /only https/);
  assert.equal(fake.sessions.length, sessions);
  await servers.close();
});

test('a name that resolves to a private address is refused at connect (the address is checked, not the name)', async () => {
  const port = new URL(fake.url).port;
  const sessions = fake.sessions.length;
  // http allowed, addresses public only: localhost passes the URL check and must fail at the lookup.
  const servers = await connect(`http://localhost:${port}/mcp`, { httpsOnly: false, addressAllowed: isPublicAddress });
  assert.equal(servers.states()[0]!.status, 'failed');
  assert.match(servers.states()[0]!.statusMessage!, /not a public address/);
  assert.equal(fake.sessions.length, sessions);
  await servers.close();
});

test('a name that turns private between two connections is refused at the second (each connection looks it up again)', async () => {
  // Each answer closes its connection, so every request makes a new one.
  const hits: string[] = [];
  const http = createServer((req, res) => {
    hits.push(req.url!);
    res.writeHead(200, { connection: 'close', 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const { port } = http.address() as AddressInfo;
  // 127.0.0.1 plays a public address here; the name's second answer is a private one.
  const answers = ['127.0.0.1', '10.0.0.7'];
  const asked: string[] = [];
  const net = guardedFetch(
    { httpsOnly: false, addressAllowed: (a) => a === '127.0.0.1' },
    {
      resolve: (hostname, cb) => {
        asked.push(hostname);
        cb(null, [{ address: answers[Math.min(asked.length - 1, answers.length - 1)]!, family: 4 }]);
      },
    },
  );
  try {
    const first = await net.fetch(`http://mcp.example.test:${port}/first`);
    assert.equal(await first.text(), 'ok');
    // Refused by the check, not by a failed connect to the private address.
    await assert.rejects(net.fetch(`http://mcp.example.test:${port}/second`), (err: Error) => {
      assert.equal((err.cause as Error | undefined)?.message, 'mcp.example.test (10.0.0.7) is not a public address');
      return true;
    });
    assert.deepEqual(asked, ['mcp.example.test', 'mcp.example.test'], 'looked up for each connection');
    assert.deepEqual(hits, ['/first'], 'the second request never left');
  } finally {
    await net.close();
    http.close();
  }
});

test('a redirect to another address is not followed', async () => {
  const target = await new FakeMcpServer().start();
  const redirecting = await new FakeMcpServer().start();
  redirecting.misbehaviour = 'redirect';
  redirecting.redirectTo = target.url.replace('127.0.0.1', '127.0.0.2');
  try {
    const only = { httpsOnly: false, addressAllowed: (a: string) => a === '127.0.0.1' };
    const servers = await connect(redirecting.url, only);
    assert.equal(servers.states()[0]!.status, 'failed');
    assert.equal(target.sessions.length, 0);
    await servers.close();
  } finally {
    await Promise.all([target.stop(), redirecting.stop()]);
  }
});

test('a call that never ends is a tool error after the call limit, and the server keeps its other tools', async () => {
  const servers = await connect(fake.url, anyAddress, { callMs: 300 });
  const hang = servers.tools.find((t) => t.name === 'mcp_s_hang');
  const out = await run(hang);
  assert.equal(out.ok, false);
  assert.match(out.text, /did not answer in time/);
  assert.match(servers.states()[0]!.statusMessage!, /hang failed/);
  assert.deepEqual(
    await run(
      servers.tools.find((t) => t.name === 'mcp_s_echo'),
      { text: 'still here' },
    ),
    {
      ok: true,
      text: 'echo: still here',
    },
  );
  await servers.close();
});

test("a hanging call holds only its own assistant: another assistant's call to the same server answers meanwhile", async () => {
  const a = await connect(fake.url, anyAddress, { callMs: 20_000 });
  const b = await connect(fake.url);
  let aSettled = false;
  const hung = run(a.tools.find((t) => t.name === 'mcp_s_hang')).then((r) => {
    aSettled = true;
    return r;
  });
  await waitForCall('hang');
  const answered = await run(
    b.tools.find((t) => t.name === 'mcp_s_echo'),
    { text: 'b' },
  );
  assert.deepEqual(answered, { ok: true, text: 'echo: b' });
  assert.equal(aSettled, false);
  await a.close(); // removing the server ends its call
  assert.equal((await hung).ok, false);
  await b.close();
});

async function waitForCall(tool: string) {
  const from = fake.calls.length;
  for (let i = 0; !fake.calls.slice(from - 1).some((c) => c.tool === tool); i++) {
    assert.ok(i < 100_000, `no ${tool} call reached the server`);
    await new Promise((r) => setImmediate(r));
  }
}

test('a 10 MB result is cut off: a tool error, at once', async () => {
  const servers = await connect(fake.url);
  const out = await run(servers.tools.find((t) => t.name === 'mcp_s_flood'));
  assert.equal(out.ok, false);
  assert.match(out.text, /more than 4 MB/);
  await servers.close();
});

/** A server that misbehaves so: connecting fails it, with a status message matching `why`. */
async function failsToConnect(misbehaviour: FakeMcpServer['misbehaviour'], why: RegExp) {
  const server = await new FakeMcpServer().start();
  server.misbehaviour = misbehaviour;
  try {
    const servers = await connect(server.url);
    assert.equal(servers.states()[0]!.status, 'failed');
    assert.match(servers.states()[0]!.statusMessage!, why);
    await servers.close();
  } finally {
    await server.stop();
  }
}

test('a 50 MB tool list fails the connection with a message saying so', () =>
  failsToConnect('huge-list', /more than 4 MB/));

test('a server speaking a protocol version Berth does not know is failed, with a message saying so', () =>
  failsToConnect('wrong-protocol', /protocol version/));

test('a 10,000-character tool name and a JSON Schema bomb are left out and named; the other tools stay', async () => {
  // Deep nesting and a reference to itself: what makes a validator compile for ever. Berth compiles none.
  let bomb: Record<string, unknown> = { $ref: '#' };
  for (let i = 0; i < 200; i++) bomb = { type: 'object', properties: { a: bomb } };
  const odd = await new FakeMcpServer([
    { name: 'x'.repeat(10_000) },
    { name: 'deep', inputSchema: bomb },
    { name: 'fine' },
  ]).start();
  try {
    const servers = await connect(odd.url);
    const [state] = servers.states();
    assert.equal(state!.status, 'connected');
    assert.deepEqual(
      servers.tools.map((t) => t.name),
      ['mcp_s_fine'],
    );
    assert.match(state!.statusMessage!, /name too long/);
    assert.match(state!.statusMessage!, /deep \(its input schema/);
    await servers.close();
  } finally {
    await odd.stop();
  }
});

test('at most 128 tools are offered, and never one under a built-in name', async () => {
  const many = await new FakeMcpServer(Array.from({ length: 200 }, (_, i) => ({ name: `t${i}` }))).start();
  try {
    const servers = await connect(many.url, anyAddress, { reserved: () => new Set(['mcp_s_t0']) });
    assert.equal(servers.tools.length, 128);
    assert.equal(servers.tools[0]!.name, 'mcp_s_t1');
    await servers.close();
  } finally {
    await many.stop();
  }
});

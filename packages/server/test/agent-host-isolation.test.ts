// The local agent host is a process that runs tenants' tools: it gets no secret it does not need,
// its admin token never sits in its environment, and no other local user can stand in for it or
// talk to it (it listens on a Unix socket in a 0700 directory, not on a TCP port).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import OpenAI from 'openai';
import { request } from 'undici';
import { startE2E, type E2E } from './helpers/e2e.js';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { upstreamAddress } from '../src/proxy/upstream-pools.js';

let e: E2E;
let id: string;
before(async () => {
  process.env.BERTH_TEST_OPERATOR_SECRET = 'an-operator-variable-the-host-must-not-see';
  e = await startE2E();
  const bot = '7400000011:AAisolationHostSocketTokenForTest_abcd';
  e.tg.addBot(bot);
  id = await e.activate(bot);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
});
after(async () => {
  delete process.env.BERTH_TEST_OPERATOR_SECRET;
  await e.close();
});

const host = () => {
  const h = e.runtime.services.workers;
  assert.ok(h instanceof LocalAgentHost && h.pid);
  return h;
};
const environOf = (pid: number) =>
  readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((kv) => kv.slice(0, kv.indexOf('=')));
const socketOf = async () => {
  const view = (await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data;
  return upstreamAddress(view.workerUrl).socketPath;
};
const chat = (text: string) =>
  new OpenAI({ apiKey: e.key, baseURL: `${e.url}/api/v1/assistants/${id}`, maxRetries: 0 }).chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: text }],
  });

test('the host inherits only an allowlist of variables, and its admin token is not among them', () => {
  const names = environOf(host().pid!);
  for (const secret of ['SECRETS_KEY', 'DATABASE_URL', 'ADMIN_TOKEN', 'BERTH_TEST_OPERATOR_SECRET'])
    assert.ok(!names.includes(secret), `${secret} reached the agent host`);
  assert.ok(names.includes('PATH'));
  // Decision 0023: the allocator gives a turn's downloads back instead of keeping them.
  assert.ok(names.includes('MALLOC_MMAP_THRESHOLD_'));
  const environ = readFileSync(`/proc/${host().pid}/environ`, 'utf8');
  const cmdline = readFileSync(`/proc/${host().pid}/cmdline`, 'utf8');
  const token = Reflect.get(host(), 'adminToken') as string;
  assert.ok(token.length >= 40);
  assert.ok(!environ.includes(token) && !cmdline.includes(token), 'the admin token is handed over stdin');
});

test('the host listens on a Unix socket in a directory only this user can enter', async () => {
  const socket = await socketOf();
  assert.ok(socket, 'workerUrl addresses a Unix socket');
  const dir = statSync(dirname(socket));
  assert.equal(dir.mode & 0o777, 0o700);
  assert.equal(dir.uid, process.getuid!());
  assert.ok(statSync(socket).isSocket());
  assert.equal((await chat('over the socket')).choices[0]!.message.content, 'You said: over the socket');
});

test('another local user can neither bind where the host listens nor connect to it', {
  skip: process.getuid!() !== 0 && 'needs root to run a process as nobody',
}, async () => {
  const socket = (await socketOf())!;
  // `nobody` tries to listen on the host's socket path (as an impostor would after a crash) and to
  // connect to the live host; both are refused by the directory's mode.
  const script = `
    const net = require('node:net');
    const out = {};
    const srv = net.createServer();
    srv.on('error', (e) => { out.listen = e.code; done(); });
    srv.listen(${JSON.stringify(`${socket}.impostor`)}, () => { out.listen = 'ok'; srv.close(); done(); });
    const c = net.connect(${JSON.stringify(socket)});
    c.on('connect', () => { out.connect = 'ok'; c.destroy(); done(); });
    c.on('error', (e) => { out.connect = e.code; done(); });
    function done() { if (out.listen && out.connect) { console.log(JSON.stringify(out)); process.exit(0); } }
  `;
  const child = spawn(process.execPath, ['-e', script], { uid: 65534, gid: 65534, cwd: '/', env: {} });
  let stdout = '';
  child.stdout.on('data', (c) => (stdout += c));
  await new Promise((r) => child.once('exit', r));
  assert.deepEqual(JSON.parse(stdout), { listen: 'EACCES', connect: 'EACCES' });
});

test("a worker's own 404 (the host does not hold the assistant yet) reaches the client as ASSISTANT_NOT_READY", async () => {
  const view = (await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data;
  const name = view.workerUrl.split('/agents/')[1];
  assert.equal(await host().deleteWorker(name), 'deleted');
  const res = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'hello?' }],
  });
  assert.equal(res.status, 409, res.text);
  assert.equal(res.json.error.code, 'ASSISTANT_NOT_READY');
  // Not "your key is wrong" nor "no such assistant": retry shortly.
  assert.equal(
    await request(`${e.url}/api/v1/assistants/${id}/chat/completions`, {
      method: 'POST',
      headers: { 'x-api-key': e.key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] }),
    }).then(async (r) => (await r.body.dump(), r.headers['retry-after'])),
    '2',
  );
});

test('a killed host: chat fails fast while it is down, its token dies with it, and a new host answers', async () => {
  const before = host();
  const oldPid = before.pid!;
  const oldToken = Reflect.get(before, 'adminToken') as string;
  const socket = (await socketOf())!;
  const child = Reflect.get(before, 'child') as ChildProcess;
  process.kill(oldPid, 'SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  // Nothing is routed to the dead host's origin: admin calls fail at once, without connecting.
  await assert.rejects(before.listWorkers(), /the agent host is not running/);
  // While it is down nothing answers on its address: a clean BAD_GATEWAY, never a hang.
  const down = await e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'anyone there?' }],
  });
  if (down.status !== 200) {
    assert.equal(down.status, 502, down.text);
    assert.equal(down.json.error.code, 'BAD_GATEWAY');
    assert.doesNotMatch(down.json.error.message, /host\.sock|127\.0\.0\.1|berth-host-/, 'no internal address');
  }
  const end = Date.now() + 20_000;
  for (;;) {
    const pid = host().pid;
    if (pid && pid !== oldPid) {
      try {
        if ((await chat('back again')).choices[0]!.message.content === 'You said: back again') break;
      } catch {
        // still restarting or re-creating the agent
      }
    }
    if (Date.now() > end) throw new Error('the host did not come back');
    await new Promise((r) => setTimeout(r, 200));
  }
  const newToken = Reflect.get(host(), 'adminToken') as string;
  assert.notEqual(newToken, oldToken, 'a new admin token for every spawn');
  const res = await request('http://localhost/agents', {
    dispatcher: new (await import('undici')).Agent({ connect: { socketPath: socket } }),
    headers: { authorization: `Bearer ${oldToken}` },
  });
  assert.equal(res.statusCode, 401, 'the old token opens nothing');
  await res.body.dump();
});

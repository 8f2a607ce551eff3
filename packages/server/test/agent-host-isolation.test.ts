// The local agent host is a process that runs tenants' tools: it gets no secret it does not need,
// its admin token never sits in its environment, and no other local user can stand in for it or
// talk to it (it listens on a Unix socket in a 0700 directory, not on a TCP port).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { request } from 'undici';
import { startE2E, type E2E, activeBot } from './helpers/e2e.js';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { upstreamAddress } from '../src/chat/proxy/upstream-pools.js';

let e: E2E;
let id: string;
before(async () => {
  process.env.BERTH_TEST_OPERATOR_SECRET = 'an-operator-variable-the-host-must-not-see';
  e = await startE2E();
  const bot = '7400000011:AAisolationHostSocketTokenForTest_abcd';
  id = await activeBot(e, bot);
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
const socketOf = async () =>
  upstreamAddress((await e.runtime.services.deployments.findById(id))!.workerUrl!).socketPath;
const workerUrlOf = async () => (await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.workerUrl as string;
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
  // Ours, or (a control plane running as root) the host's own uid.
  assert.equal(dir.uid, process.getuid!() === 0 ? 64999 : process.getuid!());
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

test('workerUrl names the worker without revealing where the host listens', async () => {
  const shown = await workerUrlOf();
  const socket = Reflect.get(host(), 'socketPath') as string;
  for (const url of [shown, (await e.api('GET', `/api/v1/assistants/${id}`)).json.data.workerUrl]) {
    assert.ok(!url.includes(dirname(socket)) && !url.includes(encodeURIComponent(dirname(socket))), url);
    assert.ok(!/unix|sock|tmp/i.test(url), url);
  }
  assert.equal(shown, `berth-local-host:/agents/asst-${id}`);
});

test('a control plane killed with SIGKILL leaves its socket directory; the next start removes it', async () => {
  const state = mkdtempSync(join(tmpdir(), 'berth-kill9-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'helpers/local-host.ts'), state],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const dir = await new Promise<string>((ok, fail) => {
      child.once('exit', (code) => fail(new Error(`the helper exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^socket-dir (\S+)$/.exec(line);
        if (m) ok(m[1]!);
      });
    });
    assert.ok(statSync(dir).isDirectory());
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.ok(existsSync(dir), 'SIGKILL gives no chance to clean up');
    const next = new LocalAgentHost({
      dataDir: join(state, 'agents'),
      stateDir: state,
      logLevel: 'warn',
      log: e.runtime.services.log,
    });
    try {
      assert.equal(existsSync(dir), false, `${dir} was left behind`);
    } finally {
      await next.stop();
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(state, { recursive: true, force: true });
  }
});

test("run as root, the host runs as another uid, which cannot read the control plane's environ", {
  skip: process.getuid?.() !== 0 && 'only a control plane running as root can give the host another uid',
}, async () => {
  const status = readFileSync(`/proc/${host().pid}/status`, 'utf8');
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
  assert.notEqual(uid, 0, 'the agent host runs as root');
  assert.equal(uid, 64999);
  // What code running in the host could try: read this process's (the control plane's) environ.
  const probe = spawn(
    process.execPath,
    [
      '-e',
      `try { require('fs').readFileSync('/proc/${process.pid}/environ'); console.log('read') } catch (e) { console.log(e.code) }`,
    ],
    { uid, gid: uid, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  probe.stdout!.on('data', (d) => (out += d));
  await once(probe, 'exit');
  assert.equal(out.trim(), 'EACCES');
  // And the host still answers over its socket.
  assert.equal((await chat('as another uid')).choices[0]!.message.content, 'You said: as another uid');
});

// Two control-plane processes (the built server, as `npm start` runs it) on one PostgreSQL behind
// nginx from Debian's packages: the lifecycle and chat through the balancer, every job run once,
// a replica SIGKILLed while it runs a deploy and the other finishing it, and a revoked key refused
// by both replicas within the key cache's TTL, and each status change called back once whichever
// replica made it. PostgreSQL only (CI's second pass).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { PG_URL, createTestDatabase, databaseEnv } from './helpers/database.js';
import { MODEL_KEY, catalogFor } from './helpers/e2e.js';
import { callApi } from './helpers/http-api.js';
import { CallbackReceiver, freePort } from './helpers/callback-receiver.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => spawnSync('test', ['-x', p]).status === 0);
const skip = !PG_URL
  ? 'PostgreSQL only (runs under scripts/with-postgres.sh)'
  : !NGINX
    ? 'needs nginx (apt-get install nginx-light)'
    : false;

const BOT = '7200000021:AAreplicaBotTokenForTwoControlPlanes_x';
let dir: string;
let tg: FakeTelegram;
let provider: FakeModelProvider;
let db: { url: string | undefined; drop(): Promise<void> };
let env: Record<string, string>;
const replicas: { port: number; child: ChildProcess; logs: string[] }[] = [];
let nginx: ChildProcess | undefined;
let lb = '';
let key = '';
const RATE_LIMIT = 600;
const receiver = new CallbackReceiver();

async function waitHttp(url: string, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await request(url);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > end) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function startReplica(i: number) {
  const port = await freePort();
  const logs: string[] = [];
  const child = spawn(process.execPath, [join(ROOT, 'packages/server/bin/berth-server.js')], {
    env: { ...env, PORT: String(port), DATA_DIR: join(dir, `replica-${i}`) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => logs.push(String(d)));
  child.stderr!.on('data', (d) => logs.push(String(d)));
  replicas[i] = { port, child, logs };
  await waitHttp(`http://127.0.0.1:${port}/healthz`);
}

function cli(...args: string[]) {
  return spawnSync(process.execPath, [join(ROOT, 'packages/cli/bin/berth.js'), ...args], {
    env: { ...env, DATA_DIR: join(dir, 'cli') },
    encoding: 'utf8',
  });
}

const api = (base: string, method: string, path: string, body?: unknown, k = key) =>
  callApi(base, k, method, path, body);

async function waitStatus(id: string, statuses: string[], timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(lb, 'GET', `/api/v1/assistants/${id}/status`);
    if (statuses.includes(res.json?.data?.status)) return res.json.data;
    if (Date.now() > end) throw new Error(`status stayed ${res.text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function jobs(): Promise<{ kind: string; status: string; attempts: number; locked_by: string | null }[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query('SELECT kind, status, attempts, locked_by FROM jobs ORDER BY created_at')).rows;
  } finally {
    await c.end();
  }
}

before(async () => {
  if (skip) return;
  await receiver.start();
  dir = mkdtempSync(join(tmpdir(), 'berth-replicas-'));
  tg = await new FakeTelegram().start();
  tg.addBot(BOT);
  provider = await new FakeModelProvider().start();
  db = await createTestDatabase();
  const lbPort = await freePort();
  lb = `http://127.0.0.1:${lbPort}`;
  env = {
    PATH: process.env.PATH ?? '',
    // The runner's folder for this file (scripts/file-tmpdir.mjs): the replicas' hosts' sockets go with it.
    TMPDIR: tmpdir(),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: lb,
    MODEL_CATALOG: catalogFor(provider.url),
    TELEGRAM_API_ROOT: tg.url,
    MANAGED_PROVIDER_API_KEY: MODEL_KEY,
    DEPLOY_TIMEOUT_SECONDS: '60',
    JOB_LEASE_SECONDS: '2',
    // Passes often, so that a pass that would flap a status does so within the tests' waits.
    RECONCILE_INTERVAL_SECONDS: '1',
    // High enough for the status polling of the other tests, low enough to exhaust quickly.
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
    CALLBACK_ALLOW_INSECURE: 'true',
    ...databaseEnv(db),
  };
  // Migrations run once, by the first replica; the second finds them applied.
  await startReplica(0);
  await startReplica(1);
  const conf = join(dir, 'nginx.conf');
  mkdirSync(join(dir, 'nginx'), { recursive: true });
  writeFileSync(
    conf,
    `
${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes 1;
daemon off;
pid ${dir}/nginx/nginx.pid;
error_log ${dir}/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/nginx/body; proxy_temp_path ${dir}/nginx/proxy;
  fastcgi_temp_path ${dir}/nginx/fastcgi; uwsgi_temp_path ${dir}/nginx/uwsgi; scgi_temp_path ${dir}/nginx/scgi;
  upstream berth {
    server 127.0.0.1:${replicas[0]!.port} max_fails=1 fail_timeout=30s;
    server 127.0.0.1:${replicas[1]!.port} max_fails=1 fail_timeout=30s;
  }
  server {
    listen 127.0.0.1:${lbPort};
    location / {
      proxy_pass http://berth;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_next_upstream error timeout;
    }
  }
}`,
  );
  nginx = spawn(NGINX!, ['-c', conf, '-p', join(dir, 'nginx')], { stdio: 'ignore' });
  await waitHttp(`${lb}/healthz`, 20_000);
  const created = cli('admin', 'create-key', '--email', 'replicas@example.com');
  assert.equal(created.status, 0, created.stderr);
  key = created.stdout.trim().split('\n').at(-1)!;
});

after(async () => {
  if (skip) return;
  receiver.close();
  nginx?.kill('SIGTERM');
  for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  await Promise.all(
    replicas.map((r) =>
      r.child.exitCode === null && r.child.signalCode === null
        ? new Promise((res) => r.child.once('exit', res))
        : undefined,
    ),
  );
  await tg?.stop();
  await provider?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

let id = '';

async function sql(text: string, params: unknown[] = []) {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

/** The replica whose agent host runs the deployment's worker (its record's socket). */
async function ownerOf(deployment: string): Promise<number> {
  const [row] = await sql('SELECT worker_url FROM deployments WHERE id = $1', [deployment]);
  const socketDir = (i: number) => readFileSync(join(dir, `replica-${i}`, 'agent-host-socket-dir'), 'utf8').trim();
  const owner = [0, 1].find((i) => decodeURIComponent(row.worker_url).includes(socketDir(i)));
  assert.ok(owner !== undefined, `no replica's host holds ${row.worker_url}`);
  return owner;
}

test('through the balancer: purchase, pay, activate, chat on both replicas, every job once', { skip }, async () => {
  const bought = await api(lb, 'POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  assert.equal(bought.status, 201, bought.text);
  id = bought.json.data.deploymentId;
  const paid = await request(`${lb}${new URL(bought.json.data.checkoutUrl).pathname}/complete`, { method: 'POST' });
  await paid.body.dump();
  const res = await api(lb, 'POST', `/api/v1/assistants/${id}/activate`, {
    name: 'Replicas',
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    messengerBotToken: BOT,
    modelApiKey: MODEL_KEY,
    callbackUrl: receiver.url,
  });
  assert.equal(res.status, 200, res.text);
  assert.equal((await waitStatus(id, ['active', 'failed'])).status, 'active');
  for (const r of replicas) {
    const chat = await api(`http://127.0.0.1:${r.port}`, 'POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: `via ${r.port}` }],
    });
    assert.equal(chat.status, 200, chat.text);
    assert.equal(chat.json.choices[0].message.content, `You said: via ${r.port}`);
  }
  for (let i = 0; i < 4; i++) {
    const chat = await api(lb, 'POST', `/api/v1/assistants/${id}/chat/completions`, {
      model: 'assistant-agent',
      messages: [{ role: 'user', content: `lb ${i}` }],
    });
    assert.equal(chat.status, 200, chat.text);
  }
  const deploys = (await jobs()).filter((j) => j.kind === 'deploy');
  assert.equal(deploys.length, 1);
  assert.equal(deploys[0]!.status, 'done');
  assert.equal(Number(deploys[0]!.attempts), 1, 'one replica ran the deploy, once');
});

test("the leader's passes leave alone a worker another replica's host runs: no redeploy, no status flap", {
  skip,
}, async () => {
  const owner = await ownerOf(id);
  const other = 1 - owner;
  const deploysBefore = (await jobs()).filter((j) => j.kind === 'deploy').length;
  // The replica whose host does not run the worker leads: the owner is paused (its agent host, a
  // process of its own, goes on running the bot) and the lease is freed for the other to take.
  replicas[owner]!.child.kill('SIGSTOP');
  try {
    await sql(`DELETE FROM leases WHERE name = 'reconciler'`);
    const end = Date.now() + 20_000;
    while ((await sql(`SELECT holder FROM leases WHERE name = 'reconciler'`)).length === 0) {
      assert.ok(Date.now() < end, 'the other replica took the lease');
      await new Promise((r) => setTimeout(r, 100));
    }
    // Several of the leader's passes (RECONCILE_INTERVAL_SECONDS is 1 here), on the wall clock: the
    // replicas are other processes, whose passes give this test no event.
    await new Promise((r) => setTimeout(r, 5000));
    const view = await api(`http://127.0.0.1:${replicas[other]!.port}`, 'GET', `/api/v1/assistants/${id}/status`);
    assert.equal(view.json.data.status, 'active', view.text);
  } finally {
    replicas[owner]!.child.kill('SIGCONT');
  }
  assert.equal((await jobs()).filter((j) => j.kind === 'deploy').length, deploysBefore, 'no redeploy');
  assert.equal(await ownerOf(id), owner, 'the worker stayed where it was');
  const statuses = (receiver.messages().get(id) ?? []).map((d) => d.status);
  assert.deepEqual(statuses, ['deploying', 'active']);
});

test('a replica SIGKILLed while it runs a deploy: the other finishes it', { skip }, async () => {
  assert.equal((await api(lb, 'POST', `/api/v1/assistants/${id}/stop`)).status, 200);
  // Replica 1 is paused, so replica 0 claims the deploy; it is killed as soon as it holds it.
  replicas[1]!.child.kill('SIGSTOP');
  try {
    const redeploy = await api(`http://127.0.0.1:${replicas[0]!.port}`, 'POST', `/api/v1/assistants/${id}/redeploy`);
    assert.equal(redeploy.status, 200, redeploy.text);
    const end = Date.now() + 20_000;
    let claimed = false;
    while (!claimed && Date.now() < end) {
      claimed = (await jobs()).some((j) => j.kind === 'deploy' && j.status === 'pending' && j.locked_by !== null);
      if (!claimed) await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(claimed, 'replica 0 claimed the deploy');
    replicas[0]!.child.kill('SIGKILL');
  } finally {
    replicas[1]!.child.kill('SIGCONT');
  }
  const view = await waitStatus(id, ['active', 'failed']);
  assert.equal(view.status, 'active', view.statusMessage);
  const deploy = (await jobs()).filter((j) => j.kind === 'deploy').at(-1)!;
  assert.equal(deploy.status, 'done');
  assert.equal(Number(deploy.attempts), 2, 'claimed by the killed replica, then by the survivor');
  const chat = await api(lb, 'POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'survived' }],
  });
  assert.equal(chat.status, 200, chat.text);
  assert.equal(chat.json.choices[0].message.content, 'You said: survived');
});

test("a replica that comes back leaves alone a worker the other's host runs: one poller, no move", {
  skip,
}, async () => {
  assert.equal(await ownerOf(id), 1, 'the survivor above runs the worker');
  await startReplica(0); // the replica killed above comes back; its start-up restores what is wanted
  await waitHttp(`http://127.0.0.1:${replicas[0]!.port}/readyz`);
  assert.equal(await ownerOf(id), 1, 'the record still names the host that runs it');
  // A second poller of the token would end the first's long poll with 409 Conflict, as Telegram does.
  const conflicts = tg.conflicts(BOT);
  // Waits on the wall clock: a second poller would end a long poll (1 s) with a conflict within
  // this; the replicas are other processes, with no event for a poller that never starts.
  await new Promise((r) => setTimeout(r, 3000));
  assert.equal(tg.conflicts(BOT), conflicts, 'no second program polls the bot');
});

test('a revoked key is refused by every replica within the key cache TTL', { skip }, async () => {
  const extra = cli('admin', 'create-key', '--email', 'revoke@example.com');
  const k = extra.stdout.trim().split('\n').at(-1)!;
  for (const r of replicas)
    assert.equal((await api(`http://127.0.0.1:${r.port}`, 'GET', '/api/v1/assistants', undefined, k)).status, 200);
  const revoked = cli('admin', 'revoke-key', '--email', 'revoke@example.com', '--key', k.slice(0, 12));
  assert.equal(revoked.status, 0, revoked.stderr);
  const TTL_MS = 3000;
  // Waits on the wall clock: the key caches of the other replicas' processes run on it.
  await new Promise((r) => setTimeout(r, TTL_MS + 500));
  for (const r of replicas)
    assert.equal((await api(`http://127.0.0.1:${r.port}`, 'GET', '/api/v1/assistants', undefined, k)).status, 401);
});

test("a key's rate limit is one count across replicas, whichever replica a request lands on", { skip }, async () => {
  const extra = cli('admin', 'create-key', '--email', 'ratelimit@example.com');
  const k = extra.stdout.trim().split('\n').at(-1)!;
  // Windows are whole wall-clock minutes: start well inside one, so the count is not reset midway.
  const toBoundary = 60_000 - (Date.now() % 60_000);
  if (toBoundary < 20_000) await new Promise((r) => setTimeout(r, toBoundary + 200));
  const statuses: number[] = [];
  // Alternate between the replicas directly (not through the balancer): each sees half the calls.
  for (let i = 0; i < RATE_LIMIT + 10; i++) {
    const r = replicas[i % 2]!;
    statuses.push((await api(`http://127.0.0.1:${r.port}`, 'GET', '/api/v1/assistants', undefined, k)).status);
  }
  assert.equal(statuses.filter((s) => s === 200).length, RATE_LIMIT, 'exactly the limit, not twice it');
  assert.deepEqual([...new Set(statuses.slice(RATE_LIMIT))], [429]);
  const limited = await api(`http://127.0.0.1:${replicas[0]!.port}`, 'GET', '/api/v1/assistants', undefined, k);
  assert.equal(limited.json.error.code, 'RATE_LIMITED');
  // Another key is not slowed by it.
  assert.equal((await api(lb, 'GET', '/api/v1/assistants')).status, 200);
});

test('delete through the balancer; every status change was called back once, in order, whichever replica made it', {
  skip,
}, async () => {
  // Served by the replica whose agent host does not hold the worker: the other must notice.
  const owner = await ownerOf(id);
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  // No replica leads the reconciler meanwhile: its pass would remove the worker from the leader's
  // own host and hide a zombie on the other's. Only each replica's own pruning may remove it.
  await c.query(
    `INSERT INTO leases (name, holder, expires_at) VALUES ('reconciler', 'the-test', $1)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
    [Date.now() + 3_600_000],
  );
  await c.end();
  const other = replicas[1 - owner]!;
  assert.ok(tg.activePolls(BOT) > 0, 'the bot is polled before the delete');
  assert.equal((await api(`http://127.0.0.1:${other.port}`, 'DELETE', `/api/v1/assistants/${id}`)).status, 200);
  for (const r of replicas)
    assert.equal((await api(`http://127.0.0.1:${r.port}`, 'GET', `/api/v1/assistants/${id}`)).status, 404);
  // No zombie: within a few reconcile intervals the owner's host drops the worker and its long poll
  // ends (a live worker holds one open nearly all the time).
  const until = Date.now() + 60_000;
  for (let quiet = 0; quiet < 15; ) {
    assert.ok(Date.now() < until, 'the deleted assistant kept polling Telegram');
    quiet = tg.activePolls(BOT) === 0 ? quiet + 1 : 0;
    await new Promise((r) => setTimeout(r, 200));
  }
  const c2 = new pg.Client({ connectionString: db.url });
  await c2.connect();
  await c2.query(`DELETE FROM leases WHERE name = 'reconciler' AND holder = 'the-test'`);
  await c2.end();
  const end = Date.now() + 20_000;
  // The lifecycle above: deploying, active, stopped, deploying (redeploy), active.
  const want = ['deploying', 'active', 'stopped', 'deploying', 'active'];
  while ((receiver.messages().get(id)?.length ?? 0) < want.length) {
    assert.ok(Date.now() < end, `every callback arrives (have ${receiver.deliveries.length})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  receiver.assertEachEventOnce(new Map());
  assert.deepEqual(
    receiver
      .messages()
      .get(id)!
      .map((d) => d.status),
    want,
  );
});

// Randomised crashes: the built server (as `npm start` runs it, with its real agent host) is
// SIGKILLed at a random moment while random lifecycle operations are in flight, then started
// again, CRASH_RUNS times (100 by default). After each restart the system must converge: every
// active assistant's bot is polled by exactly one worker and answers, and no stopped, failed or
// deleted assistant's bot is polled at all. The seed is printed on failure (CRASH_SEED replays it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { createTestDatabase, databaseEnv } from './helpers/database.js';
import { MODEL_KEY, catalogFor } from './helpers/e2e.js';
import { openStore } from '../src/index.js';
import { callApi } from './helpers/http-api.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const RUNS = Number(process.env.CRASH_RUNS ?? 100);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const MAX_LIVE = 3;

/** mulberry32: a small seeded PRNG, so a failing sequence can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let dir: string;
let tg: FakeTelegram;
let provider: FakeModelProvider;
let db: { url: string | undefined; drop(): Promise<void> };
let env: Record<string, string>;
let base = '';
let key = '';
let server: ChildProcess | undefined;

async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => s.once('listening', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function startServer() {
  const child = spawn(process.execPath, [join(ROOT, 'packages/server/bin/berth-server.js')], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const errors: string[] = [];
  child.stderr!.on('data', (d) => errors.push(String(d)));
  server = child;
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      const res = await request(`${base}/healthz`);
      await res.body.dump();
      if (res.statusCode === 200) return;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`the server exited: ${errors.join('')}`);
    if (Date.now() > end) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function kill() {
  const child = server;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const api = (method: string, path: string, body?: unknown) => callApi(base, key, method, path, body);

interface Slot {
  id: string;
  bot: string;
}
const slots: Slot[] = [];
let botNo = 0;

async function create(): Promise<void> {
  const bot = `73${String(10_000_000 + botNo++).slice(0, 8)}:AAcrashTestBotTokenNumber_x_${String(botNo).padStart(8, '0')}`;
  tg.addBot(bot);
  const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  if (bought.status !== 201) return;
  const { deploymentId, checkoutUrl } = bought.json.data;
  slots.push({ id: deploymentId, bot });
  await request(`${base}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  await api('POST', `/api/v1/assistants/${deploymentId}/activate`, {
    name: 'Crash',
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    messengerBotToken: bot,
    modelApiKey: MODEL_KEY,
  });
}

async function randomOp(rand: () => number): Promise<void> {
  const live = slots.length;
  const pick = () => slots[Math.floor(rand() * slots.length)]!;
  const r = rand();
  if (live < MAX_LIVE && (live === 0 || r < 0.35)) return create();
  const s = pick();
  if (r < 0.55) await api('POST', `/api/v1/assistants/${s.id}/stop`);
  else if (r < 0.8) await api('POST', `/api/v1/assistants/${s.id}/redeploy`);
  else {
    const res = await api('DELETE', `/api/v1/assistants/${s.id}`);
    if (res.status === 200) slots.splice(slots.indexOf(s), 1);
  }
}

async function converged(run: number): Promise<void> {
  const end = Date.now() + 45_000;
  let last = '';
  for (;;) {
    const problems: string[] = [];
    const list = await api('GET', '/api/v1/assistants');
    const records = new Map<string, any>((list.json?.data ?? []).map((d: any) => [d.id, d]));
    for (const s of [...slots]) {
      const d = records.get(s.id);
      if (!d) {
        // A delete that answered nothing before the crash may still have happened.
        if ((await api('GET', `/api/v1/assistants/${s.id}`)).status === 404) slots.splice(slots.indexOf(s), 1);
        continue;
      }
      const polls = tg.activePolls(s.bot);
      if (d.status === 'deploying') problems.push(`${s.id} still deploying`);
      else if (d.status === 'active' && polls !== 1) problems.push(`${s.id} active with ${polls} pollers`);
      else if (d.status !== 'active' && polls !== 0) problems.push(`${s.id} ${d.status} with ${polls} pollers`);
    }
    for (const bot of deletedBots()) {
      if (tg.activePolls(bot) !== 0) problems.push(`a deleted slot's bot ${bot.slice(0, 10)} is still polled`);
    }
    if (problems.length === 0) return;
    last = problems.join('; ');
    if (Date.now() > end) throw new Error(`run ${run} (seed ${SEED}) did not converge: ${last}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function deletedBots(): string[] {
  const live = new Set(slots.map((s) => s.bot));
  return [...tg.bots.keys()].filter((t) => !live.has(t));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'berth-crash-'));
  tg = await new FakeTelegram().start();
  provider = await new FakeModelProvider().start();
  db = await createTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'error',
    DATA_DIR: join(dir, 'data'),
    PUBLIC_BASE_URL: base,
    MODEL_CATALOG: catalogFor(provider.url),
    TELEGRAM_API_ROOT: tg.url,
    DEPLOY_TIMEOUT_SECONDS: '20',
    JOB_LEASE_SECONDS: '1',
    RECONCILE_INTERVAL_SECONDS: '1',
    RATE_LIMIT_PER_MINUTE: '0',
    ...databaseEnv(db),
  };
  const created = spawnSync(
    process.execPath,
    [join(ROOT, 'packages/cli/bin/berth.js'), 'admin', 'create-key', '--email', 'crash@example.com'],
    { env, encoding: 'utf8' },
  );
  assert.equal(created.status, 0, created.stderr);
  key = created.stdout.trim().split('\n').at(-1)!;
});

after(async () => {
  await kill();
  await tg?.stop();
  await provider?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test(`${RUNS} random SIGKILLs during deploy, stop, redeploy and delete converge (seed ${SEED})`, async () => {
  const rand = prng(SEED);
  for (let run = 0; run < RUNS; run++) {
    await startServer();
    if (run > 0) await converged(run);
    const ops = 1 + Math.floor(rand() * 3);
    const inflight = Array.from({ length: ops }, () => randomOp(rand).catch(() => {}));
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
    await kill();
    await Promise.allSettled(inflight);
  }
  await startServer();
  await converged(RUNS);
  // The stored desired and observed state agree with the converged status (decision 0011).
  const store = await openStore({ databaseUrl: db.url, dataDir: join(dir, 'data') });
  try {
    const rows = await store.db.selectFrom('deployments').select(['id', 'status', 'desired', 'observed']).execute();
    for (const r of rows) {
      const want =
        r.status === 'active'
          ? ['running', 'ready']
          : r.status === 'deploying'
            ? ['running', r.observed === 'starting' ? 'starting' : 'absent']
            : ['stopped', r.observed];
      assert.deepEqual([r.desired, r.observed], want, `${r.id} is ${r.status}`);
    }
  } finally {
    await store.close();
  }
  for (const s of slots) {
    const d = (await api('GET', `/api/v1/assistants/${s.id}`)).json?.data;
    if (d?.status !== 'active') continue;
    tg.userSends(s.bot, 9900, { text: 'after the crashes' });
    assert.equal(
      (await tg.waitForSent((m) => m.token === s.bot && m.chat_id === 9900)).text,
      'You said: after the crashes',
    );
  }
});

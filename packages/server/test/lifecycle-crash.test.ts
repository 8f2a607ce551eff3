// Randomised crashes: the built server (as `npm start` runs it, with its real agent host) is
// SIGKILLed at a random moment while random lifecycle operations are in flight, then started
// again, CRASH_RUNS times (by default 50 on PostgreSQL, the store of multi-replica production, and
// 20 on SQLite: the crash paths are the same code on both stores). Every run draws a new seed, so
// CI's runs together cover more sequences than one long run would; CRASH_RUNS=500 is the soak.
// After each restart the system must converge to what the last accepted request asked for (a
// request whose answer the crash swallowed may or may not have happened): every active
// assistant's bot is polled by exactly one worker and answers, no stopped, failed or deleted
// assistant's bot is polled at all, no record is lost, no job is duplicated and every callback
// is delivered once per event (retries of one message aside).
// The seed is printed on failure (CRASH_SEED replays it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { DIALECT, createTestDatabase, databaseEnv } from './helpers/database.js';
import { MODEL_KEY, catalogFor } from './helpers/e2e.js';
import { openStore } from '../src/index.js';
import { callApi } from './helpers/http-api.js';
import { CallbackReceiver, freePort } from './helpers/callback-receiver.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const RUNS = Number(process.env.CRASH_RUNS ?? (DIALECT === 'postgres' ? 50 : 20));
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
      // Ours, not another process's on this port: a control plane that could not listen exits.
      if (res.statusCode === 200 && child.exitCode === null) return;
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

/** What a slot may look like once converged: 'gone' is a 404. A swallowed answer widens the set. */
type Outcome = 'purchased' | 'active' | 'stopped' | 'failed' | 'gone';
interface Slot {
  id: string;
  bot: string;
  may: Set<Outcome>;
}
const slots: Slot[] = [];
let botNo = 0;

const receiver = new CallbackReceiver();

/** Narrows or widens what a slot may be after one request, from the answer it got (or none). */
async function apply(s: Slot, call: Promise<{ status: number }>, accepted: Outcome) {
  try {
    // A refusal (409: not yet activated, or still deploying) leaves the slot as it was.
    if ((await call).status < 300) s.may = new Set([accepted]);
  } catch {
    s.may.add(accepted); // the crash swallowed the answer: it may or may not have happened
  }
}

async function create(): Promise<void> {
  const bot = `73${String(10_000_000 + botNo++).slice(0, 8)}:AAcrashTestBotTokenNumber_x_${String(botNo).padStart(8, '0')}`;
  tg.addBot(bot);
  const bought = await api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  if (bought.status !== 201) return;
  const { deploymentId, checkoutUrl } = bought.json.data;
  const slot: Slot = { id: deploymentId, bot, may: new Set(['purchased']) };
  slots.push(slot);
  await request(`${base}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const activation = api('POST', `/api/v1/assistants/${deploymentId}/activate`, {
    name: 'Crash',
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    messengerBotToken: bot,
    modelApiKey: MODEL_KEY,
    callbackUrl: receiver.url,
  });
  await apply(slot, activation, 'active');
}

/** One random operation on a slot no other operation of this run touches (so its outcome is known). */
async function randomOp(rand: () => number, busy: Set<Slot>): Promise<void> {
  const free = slots.filter((s) => !busy.has(s));
  const r = rand();
  if (slots.length < MAX_LIVE && (free.length === 0 || r < 0.35)) return create();
  if (free.length === 0) return;
  const s = free[Math.floor(rand() * free.length)]!;
  busy.add(s);
  if (r < 0.55) await apply(s, api('POST', `/api/v1/assistants/${s.id}/stop`), 'stopped');
  else if (r < 0.8) await apply(s, api('POST', `/api/v1/assistants/${s.id}/redeploy`), 'active');
  else await apply(s, api('DELETE', `/api/v1/assistants/${s.id}`), 'gone');
}

async function converged(run: number): Promise<void> {
  const end = Date.now() + 45_000;
  let last = '';
  for (;;) {
    const problems: string[] = [];
    const list = await api('GET', '/api/v1/assistants');
    const records = new Map<string, any>((list.json?.data ?? []).map((d: any) => [d.id, d]));
    const seen = new Map<Slot, Outcome>();
    for (const s of [...slots]) {
      const d = records.get(s.id);
      const may = [...s.may].join('|');
      if (!d) {
        const gone = (await api('GET', `/api/v1/assistants/${s.id}`)).status === 404;
        if (!gone) problems.push(`${s.id} is missing from the list but not gone`);
        else if (!s.may.has('gone')) problems.push(`${s.id} was lost: no delete was asked, it should be ${may}`);
        else seen.set(s, 'gone');
        continue;
      }
      const polls = tg.activePolls(s.bot);
      if (d.status === 'deploying') problems.push(`${s.id} still deploying`);
      else if (d.status === 'active' && polls !== 1) problems.push(`${s.id} active with ${polls} pollers`);
      else if (d.status !== 'active' && polls !== 0) problems.push(`${s.id} ${d.status} with ${polls} pollers`);
      else if (!s.may.has(d.status)) problems.push(`${s.id} is ${d.status}, the last accepted request asked ${may}`);
      else seen.set(s, d.status);
    }
    for (const bot of deletedBots()) {
      if (tg.activePolls(bot) !== 0) problems.push(`a deleted slot's bot ${bot.slice(0, 10)} is still polled`);
    }
    if (problems.length === 0) {
      // Converged: from here on each slot is what it was seen to be.
      for (const [s, outcome] of seen) {
        if (outcome === 'gone') slots.splice(slots.indexOf(s), 1);
        else s.may = new Set([outcome]);
      }
      return;
    }
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
  await receiver.start();
  dir = mkdtempSync(join(tmpdir(), 'berth-crash-'));
  tg = await new FakeTelegram().start();
  provider = await new FakeModelProvider().start();
  db = await createTestDatabase();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    PATH: process.env.PATH ?? '',
    // The runner's folder for this file (scripts/file-tmpdir.mjs): what a SIGKILLed server's agent
    // host left there (its socket folder) goes with the file.
    TMPDIR: tmpdir(),
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
    CALLBACK_ALLOW_INSECURE: 'true',
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
  receiver.close();
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
    const busy = new Set<Slot>();
    const inflight = Array.from({ length: ops }, () => randomOp(rand, busy).catch(() => {}));
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 400)));
    await kill();
    await Promise.allSettled(inflight);
  }
  await startServer();
  await converged(RUNS);
  // One more activation with no crash after it: a short run (20 in CI's SQLite pass) on
  // a loaded machine may have had every activation swallowed, and the checks below must still see
  // a deployment that deployed and called back.
  await create();
  await converged(RUNS);
  // The stored desired and observed state agree with the converged status (decision 0011).
  const store = await openStore({ databaseUrl: db.url, dataDir: join(dir, 'data') });
  try {
    // Every callback has been delivered: none waits for a retry or is in flight.
    const end = Date.now() + 30_000;
    const undelivered = () =>
      store.db.selectFrom('jobs').select('id').where('kind', '=', 'callback').where('status', '=', 'pending').execute();
    while ((await undelivered()).length > 0) {
      assert.ok(Date.now() < end, 'every callback is delivered within 30 s of converging');
      await new Promise((r) => setTimeout(r, 100));
    }
    // No duplicate jobs: one deploy job per deployment and generation.
    const deploys = await store.db
      .selectFrom('jobs')
      .select(['deployment_id', 'generation'])
      .where('kind', '=', 'deploy')
      .execute();
    const perGeneration = new Map<string, number>();
    for (const j of deploys) {
      const k = `${j.deployment_id}#${j.generation}`;
      perGeneration.set(k, (perGeneration.get(k) ?? 0) + 1);
    }
    const doubled = [...perGeneration].filter(([, n]) => n > 1);
    assert.deepEqual(doubled, [], 'one deploy job per deployment generation');
    const rows = await store.db.selectFrom('deployments').select(['id', 'status', 'desired', 'observed']).execute();
    receiver.assertEachEventOnce(new Map(rows.map((r) => [r.id, r.status])));
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

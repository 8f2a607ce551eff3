// Per-key rate limits (RATE_LIMIT_PER_MINUTE): counted per API key, never per address, in the
// database so that two control planes on one database share each key's count.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createRuntime, loadConfig, type Runtime } from '../src/index.js';
import { createTestDatabase, databaseEnv } from './helpers/database.js';
import { FakeWorkers } from './helpers/fake-workers.js';
import { capturingLogger } from './helpers/logs.js';

const LIMIT = 5;
// The window is a calendar minute: on a slow run a test crossing a minute boundary saw its count
// restart (CI on PostgreSQL, '4' !== '1'). Both instances' clocks stand in the middle of one minute.
const WINDOW_MIDDLE = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let dirs: string[] = [];
let a: Runtime;
let b: Runtime;

async function instance(dataDir: string, sqliteDir: string, extra: Record<string, string> = {}): Promise<Runtime> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'http://berth.test',
    RATE_LIMIT_PER_MINUTE: String(LIMIT),
    ...databaseEnv(db),
    ...extra,
  });
  // On SQLite both instances open the same database file, as replicas share one PostgreSQL.
  if (!db.url) config.dataDir = sqliteDir;
  return createRuntime(config, {
    workers: new FakeWorkers(),
    logger: capturingLogger('warn').logger,
    now: () => WINDOW_MIDDLE,
  });
}

before(async () => {
  db = await createTestDatabase();
  dirs = [mkdtempSync(join(tmpdir(), 'berth-rl-')), mkdtempSync(join(tmpdir(), 'berth-rl-'))];
  a = await instance(dirs[0]!, dirs[0]!);
  b = await instance(dirs[1]!, dirs[0]!);
});
after(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function newKey(email: string) {
  const res = await createApiKey({ users: a.services.users, secrets: a.secrets, now: () => new Date() }, email);
  return res.key;
}

const list = (rt: Runtime, key: string, ip = '203.0.113.7') =>
  rt.app.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key }, remoteAddress: ip });

test('one key exhausted gets 429 RATE_LIMITED with Retry-After and RateLimit-*; another key is unaffected', async () => {
  const k1 = await newKey('rl-one@example.com');
  const k2 = await newKey('rl-two@example.com');
  for (let i = 0; i < LIMIT; i++) {
    const res = await list(a, k1);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['ratelimit-limit'], String(LIMIT));
    assert.equal(res.headers['ratelimit-remaining'], String(LIMIT - i - 1));
  }
  const over = await list(a, k1);
  assert.equal(over.statusCode, 429);
  assert.equal(over.json().error.code, 'RATE_LIMITED');
  assert.match(over.json().error.message, /5 requests per minute/);
  const retry = Number(over.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 60, `retry-after ${over.headers['retry-after']}`);
  assert.equal(over.headers['ratelimit-remaining'], '0');
  assert.equal(over.headers['ratelimit-limit'], String(LIMIT));
  assert.equal(Number(over.headers['ratelimit-reset']), retry);
  // Same address, another key: its own budget (the limit is per key, not per IP).
  const other = await list(a, k2);
  assert.equal(other.statusCode, 200, other.body);
  assert.equal(other.headers['ratelimit-remaining'], String(LIMIT - 1));
  // Chat and every other endpoint count too, and an exhausted key stays refused everywhere.
  const chat = await a.app.inject({
    method: 'POST',
    url: '/api/v1/assistants/00000000-0000-4000-8000-000000000000/chat/completions',
    headers: { authorization: `Bearer ${k1}`, 'content-type': 'application/json' },
    payload: '{}',
  });
  assert.equal(chat.statusCode, 429);
  assert.equal(chat.json().error.code, 'RATE_LIMITED');
});

test('a wrong key is a 401 and spends nobody’s budget; public routes are not counted', async () => {
  const k = await newKey('rl-three@example.com');
  for (let i = 0; i < LIMIT * 2; i++) {
    const res = await list(a, `berth_${'x'.repeat(40)}`);
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['ratelimit-limit'], undefined);
  }
  const ok = await list(a, k);
  assert.equal(ok.headers['ratelimit-remaining'], String(LIMIT - 1));
  for (let i = 0; i < LIMIT * 2; i++) {
    const res = await a.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
  }
});

test('two control planes on one database share a key’s count', async () => {
  const k = await newKey('rl-four@example.com');
  const statuses: number[] = [];
  // Alternate between the instances, from different addresses: together they allow LIMIT.
  for (let i = 0; i < LIMIT + 3; i++) statuses.push((await list(i % 2 ? b : a, k, `198.51.100.${i}`)).statusCode);
  assert.deepEqual(statuses, [...Array(LIMIT).fill(200), 429, 429, 429]);
  // Concurrent requests on both instances: exactly LIMIT pass in a fresh window of a new key.
  const k2 = await newKey('rl-five@example.com');
  const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => list(i % 2 ? b : a, k2)));
  assert.equal(racing.filter((r) => r.statusCode === 200).length, LIMIT);
  assert.equal(racing.filter((r) => r.statusCode === 429).length, 20 - LIMIT);
});

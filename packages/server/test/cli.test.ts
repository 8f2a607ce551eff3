// The operator's commands, run as an operator runs them: `npx berth admin …` in a shell.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createRuntime, loadConfig } from '../src/index.js';
import { createTestDatabase, databaseEnv } from './helpers/database.js';
import { runBerth } from './helpers/cli.js';

test('create-key prints the key alone on the last line; the key works; list and revoke', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-cli-'));
  const db = await createTestDatabase();
  const env = { ...process.env, DATA_DIR: dataDir, ...databaseEnv(db) };
  const berth = (...args: string[]) => runBerth(args, { env });

  const created = await berth('admin', 'create-key', '--email', 'Alice@Example.com');
  assert.equal(created.status, 0, created.stderr);
  const lines = created.stdout.trim().split('\n');
  const key = lines.at(-1)!;
  assert.match(key, /^berth_[A-Za-z0-9]{40}$/);
  assert.match(created.stderr, /alice@example\.com/);

  const second = await berth('admin', 'create-key', '--email', 'alice@example.com');
  assert.equal(second.status, 0, second.stderr);

  const rt = await createRuntime(loadConfig(env), {
    cacheTtlMs: 200,
    logger: createLogger('silent'),
    agentLogSink: () => {},
  });
  try {
    const res = await rt.app.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 200, res.body);

    const listed = await berth('admin', 'list-keys', '--email', 'alice@example.com');
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal(listed.stdout.trim().split('\n').length, 2);
    assert.ok(listed.stdout.includes(key.slice(0, 12)));
    assert.ok(!listed.stdout.includes(key), 'list-keys never shows a whole key');

    const revoked = await berth('admin', 'revoke-key', '--email', 'alice@example.com', '--key', key.slice(0, 12));
    assert.equal(revoked.status, 0, revoked.stderr);
    // Keys are cached for a few seconds on the hot path; revocation lands when that runs out.
    await new Promise((r) => setTimeout(r, 300));
    const after = await rt.app.inject({ method: 'GET', url: '/api/v1/assistants', headers: { 'x-api-key': key } });
    assert.equal(after.statusCode, 401);

    const shown = await berth('admin', 'show-user', '--email', 'alice@example.com');
    assert.match(shown.stdout, /webhook secret: whsec_[A-Za-z0-9+/=]{40,}/);
  } finally {
    await rt.close();
  }

  const bad = await berth('admin', 'create-key');
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /needs --email/);
  const unknownUser = await berth('admin', 'list-keys', '--email', 'nobody@example.com');
  assert.notEqual(unknownUser.status, 0);
  assert.match(unknownUser.stderr, /create-key --email nobody@example.com/);
  const badEnv = await runBerth(['admin', 'create-key', '--email', 'a@b.co'], { env: { ...env, PORT: 'x' } });
  assert.notEqual(badEnv.status, 0);
  assert.match(badEnv.stderr, /PORT/);
  await db.drop();
});

test('admin invite prints a single-use sign-up link that opens SIGNUP=closed for that email', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-cli-'));
  const db = await createTestDatabase();
  const env = { ...process.env, DATA_DIR: dataDir, PUBLIC_BASE_URL: 'https://berth.example', ...databaseEnv(db) };
  const invited = await runBerth(['admin', 'invite', '--email', 'Zoe@Example.com'], { env });
  assert.equal(invited.status, 0, invited.stderr);
  const url = invited.stdout.trim().split('\n').at(-1)!;
  assert.match(url, /^https:\/\/berth\.example\/signup\?invitation=[A-Za-z0-9]{32}$/);
  assert.match(invited.stderr, /zoe@example\.com/);
  const invitation = new URL(url).searchParams.get('invitation')!;
  const rt = await createRuntime(loadConfig({ ...env, SIGNUP: 'closed' }), {
    logger: createLogger('silent'),
    agentLogSink: () => {},
  });
  try {
    const signup = (email: string) =>
      rt.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email, password: 'long enough password', invitation },
      });
    assert.equal((await signup('zoe@example.com')).statusCode, 201);
    assert.equal((await signup('zoe2@example.com')).statusCode, 403);
  } finally {
    await rt.close();
    await db.drop();
  }
});

// Session caps: sessions per assistant (idle ones expire to make room) and stored bytes per
// session, each refused with 409 QUOTA_EXCEEDED in the envelope before the model is called.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeModelProvider } from '@berth/testkit';
import { postChat, startServe } from './helpers/serve.js';
import { SessionStore } from '../src/storage/sessions.js';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let provider: FakeModelProvider;
let s: Awaited<ReturnType<typeof startServe>>;
before(async () => {
  provider = await new FakeModelProvider().start();
  s = await startServe({ provider, sessionLimits: { maxSessions: 3, maxSessionBytes: 2000, idleMs: 86_400_000 } });
});
after(async () => {
  await s.close();
  await provider.stop();
});

const chat = async (session: string, content: string) => {
  const res = await postChat(s.url, content, session);
  return { status: res.statusCode, json: (await res.body.json()) as any };
};

test('a fourth conversation is refused while three are kept; existing ones go on', async () => {
  for (const id of ['s1', 's2', 's3']) assert.equal((await chat(id, 'hello')).status, 200);
  const before = provider.requests.length;
  const refused = await chat('s4', 'hello');
  assert.equal(refused.status, 409);
  assert.equal(refused.json.error.code, 'QUOTA_EXCEEDED');
  assert.match(refused.json.error.message, /at most 3 conversations/);
  assert.equal(provider.requests.length, before, 'the model was not called');
  assert.equal((await chat('s2', 'still here')).status, 200);
  // Without a session nothing is stored, so nothing is capped.
  const stateless = await postChat(s.url, 'hi');
  assert.equal(stateless.statusCode, 200);
  await stateless.body.dump();
});

test('a message larger than a session keeps is refused; history is trimmed to the byte cap', async () => {
  const big = await chat('s1', 'é'.repeat(1001)); // 2002 bytes in UTF-8, 1001 characters
  assert.equal(big.status, 409);
  assert.equal(big.json.error.code, 'QUOTA_EXCEEDED');
  assert.match(big.json.error.message, /2002 bytes; a session keeps at most 2000 bytes/);
  for (let i = 0; i < 10; i++) assert.equal((await chat('s1', `${'ü'.repeat(200)} ${i}`)).status, 200);
  // The next call's history: only what fits in 2000 bytes (the newest turns), never more.
  await chat('s1', 'last');
  const sent = provider.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  const history = sent.filter((m) => m.role !== 'system').slice(0, -1);
  const bytes = history.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
  assert.ok(bytes <= 2000, `${bytes} bytes of history`);
  assert.ok(history.length >= 2, 'recent turns are kept');
});

test('sessions idle longer than SESSION_IDLE_DAYS make room for new ones', () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-sessions-')), {
    maxSessions: 2,
    maxSessionBytes: 0,
    idleMs: 86_400_000,
  });
  store.append('a', 'old', [{ role: 'user', content: 'x' }], 10_000);
  store.append('a', 'new', [{ role: 'user', content: 'y' }], 10_000);
  assert.equal(store.admitSession('a', 'third'), false, 'both are recent');
  assert.equal(store.admitSession('b', 'other agent'), true, 'caps are per agent');
  // Two days later: both are idle and expire when a new session needs room.
  assert.equal(store.admitSession('a', 'third', Date.now() + 2 * 86_400_000), true);
  assert.deepEqual(store.load('a', 'old'), []);
  store.close();
});

test('the conversation store is private: its directory 0700 and its files 0600, whatever the umask', () => {
  const old = process.umask(0o022);
  const root = mkdtempSync(join(tmpdir(), 'berth-agent-perms-'));
  const dir = join(root, 'nested', 'data');
  try {
    const store = new SessionStore(dir);
    store.append('a', 'api:s', [{ role: 'user', content: 'private words' }], 10_000);
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    assert.equal(mode(dir), '700');
    const files = ['agent-sessions.sqlite', 'agent-sessions.sqlite-wal', 'agent-sessions.sqlite-shm'].map((f) =>
      join(dir, f),
    );
    assert.ok(existsSync(files[0]!));
    for (const f of files.filter(existsSync)) assert.equal(mode(f), '600', f);
    store.close();
  } finally {
    process.umask(old);
    rmSync(root, { recursive: true, force: true });
  }
});

// Host mode: many agents in one process behind an admin API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { apiSession } from '../src/storage/sessions.js';
import { MODEL_KEY, fakeModel } from './helpers/serve.js';
import { waitFor } from './helpers/bed.js';
import { telegramHostBed } from './helpers/host-bed.js';

const ADMIN = 'admin-token-for-host-tests-0123456789';
const TOKENS = {
  a: '7100000001:AAhostAgentAlphaFakeTokenForTests_abc',
  b: '7100000002:AAhostAgentBravoFakeTokenForTests_abc',
};
const bed = telegramHostBed(ADMIN, 'berth-host-', [TOKENS.a, TOKENS.b]);
const { tg, provider, host, store, logs } = bed;

const config = (botToken: string, gatewayToken: string) => ({
  gatewayToken,
  model: fakeModel(provider.url),
  telegram: { botToken },
});
const admin = (method: 'PUT' | 'DELETE' | 'GET', path: string, body?: unknown, token = ADMIN) =>
  request(`${bed.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
const chat = (name: string, token: string, content: string, session?: string) =>
  request(`${bed.url}/agents/${name}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(session ? { 'x-assistant-session-id': session } : {}),
    },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content }] }),
  });

test('the admin API needs its own token, and checks what it is given', async () => {
  assert.equal(
    (await admin('PUT', '/agents/alpha', config(TOKENS.a, 'gateway-alpha-0123456789'), 'wrong')).statusCode,
    401,
  );
  assert.equal((await admin('GET', '/agents', undefined, 'wrong')).statusCode, 401);
  assert.equal((await admin('PUT', '/agents/Bad_Name', config(TOKENS.a, 'gateway-alpha-0123456789'))).statusCode, 400);
  const bad = await admin('PUT', '/agents/alpha', { gatewayToken: 'short' });
  assert.equal(bad.statusCode, 400);
  assert.equal(((await bad.body.json()) as any).error.code, 'INVALID_REQUEST');
  assert.equal(host.size, 0);
});

test('agents are served under /agents/{name}, each with its own token and sessions', async () => {
  assert.equal((await admin('PUT', '/agents/alpha', config(TOKENS.a, 'gateway-alpha-0123456789'))).statusCode, 200);
  assert.equal((await admin('PUT', '/agents/bravo', config(TOKENS.b, 'gateway-bravo-0123456789'))).statusCode, 200);
  await waitFor(() => host.get('alpha')!.health().ready && host.get('bravo')!.health().ready);
  const health = await request(`${bed.url}/agents/alpha/health`, { headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(health.statusCode, 200);
  assert.equal(((await health.body.json()) as any).telegram.connected, true);
  const anon = (await (await request(`${bed.url}/agents/alpha/health`)).body.json()) as any;
  assert.deepEqual(anon, { ready: true, status: 'ready', reason: null }, 'no bot username or model without a token');
  assert.deepEqual(await (await request(`${bed.url}/health`)).body.json(), { ok: true });

  assert.equal(
    (await chat('alpha', 'gateway-bravo-0123456789', 'x')).statusCode,
    401,
    "one agent's token does not open another",
  );
  await (await chat('alpha', 'gateway-alpha-0123456789', 'alpha secret', 'shared-id')).body.text();
  await (await chat('bravo', 'gateway-bravo-0123456789', 'bravo turn', 'shared-id')).body.text();
  const seen = provider.requests.at(-1)!.body.messages.map((m: any) => m.content);
  assert.ok(!seen.includes('alpha secret'), 'the same session id on two agents is two sessions');

  tg.userSends(TOKENS.b, 601, { text: 'to bravo' });
  assert.equal((await tg.waitForSent((m) => m.chat_id === 601)).token, TOKENS.b);
  const list = (await (await admin('GET', '/agents')).body.json()) as any;
  assert.deepEqual(list.agents.map((a: any) => a.name).sort(), ['alpha', 'bravo']);
});

test('replacing an agent leaves exactly one poller; removing one stops it and its routes', async () => {
  await admin('PUT', '/agents/alpha', config(TOKENS.a, 'gateway-alpha-rotated-0123'));
  await waitFor(() => host.get('alpha')!.health().ready);
  await waitFor(() => tg.activePolls(TOKENS.a) === 1);
  assert.equal((await chat('alpha', 'gateway-alpha-0123456789', 'x')).statusCode, 401, 'the old gateway token is gone');
  assert.equal((await chat('alpha', 'gateway-alpha-rotated-0123', 'x')).statusCode, 200);

  assert.equal((await admin('DELETE', '/agents/nobody')).statusCode, 404);
  const del = await admin('DELETE', '/agents/alpha?purge=true');
  assert.equal(del.statusCode, 200);
  await waitFor(() => tg.activePolls(TOKENS.a) === 0, 2000);
  assert.equal((await chat('alpha', 'gateway-alpha-rotated-0123', 'x')).statusCode, 404);
  assert.equal((await request(`${bed.url}/agents/alpha/health`)).statusCode, 404);
  assert.equal(store.load('alpha', apiSession('shared-id')).length, 0, 'purge forgets its history');
  assert.ok(store.load('bravo', apiSession('shared-id')).length > 0, 'and only its own');
  assert.equal((await admin('DELETE', '/agents/alpha')).statusCode, 404);
  for (const token of [TOKENS.a, TOKENS.b, MODEL_KEY, 'gateway-bravo-0123456789']) {
    assert.ok(!logs.join('').includes(token), "no secret in the host's logs");
  }
});

test('a removed agent is garbage collected: nothing keeps it alive', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const token = '7100000003:AAhostAgentCharlieFakeTokenForTests_ab';
  tg.addBot(token);
  assert.equal((await admin('PUT', '/agents/charlie', config(token, 'gateway-charlie-0123456789'))).statusCode, 200);
  await waitFor(() => host.get('charlie')!.health().ready);
  await (await chat('charlie', 'gateway-charlie-0123456789', 'hello', 'gc-session')).body.text();
  const removed = new WeakRef(host.get('charlie')!);
  const kept = new WeakRef(host.get('bravo')!);
  assert.equal((await admin('DELETE', '/agents/charlie')).statusCode, 200);
  // deref() pins its target for the current turn, so collect in a fresh turn before asking.
  let gone = false;
  for (let i = 0; i < 20 && !gone; i++) {
    await new Promise((r) => setTimeout(r, 50));
    gc();
    gone = removed.deref() === undefined;
  }
  assert.equal(gone, true, 'the removed agent was collected');
  assert.ok(kept.deref(), 'an agent still registered is not');
});

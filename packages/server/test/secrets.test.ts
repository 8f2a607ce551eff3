// Bot tokens, model keys and API keys never appear in a response or a log line, and are
// encrypted or hashed at rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessFor, BOT_TOKEN, MODEL_KEY } from './helpers/harness.js';
import { activationBody, pay, purchase } from './helpers/api.js';

const NEW_BOT = '7999999999:AAnotherFakeTokenForTests_zyxwvutsrqp';
const NEW_KEY = 'sk-rotated-model-key-fedcba9876543210';

test('no response, log line or stored column contains a secret in clear', async (t) => {
  const h = await harnessFor(t, { LOG_LEVEL: 'trace' });
  const key = await h.key();
  const bodies: string[] = [];
  const call = async (
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    headers: Record<string, string> = { 'x-api-key': key },
  ) => {
    const res = await h.inject({ method, url, headers, ...(payload ? { payload } : {}) });
    bodies.push(JSON.stringify(res.headers) + res.body);
    return res;
  };
  const { deploymentId: id, checkoutUrl } = await purchase(h, key);
  await pay(h, checkoutUrl);
  const A = `/api/v1/assistants/${id}`;
  // Rejected requests that carry secrets must not echo them either.
  await call(
    'POST',
    `${A}/activate`,
    activationBody('byok', { modelId: 'no-such-model', messengerBotToken: BOT_TOKEN }),
  );
  await call(
    'POST',
    `${A}/activate`,
    activationBody('byok', { callbackUrl: 'https://10.0.0.1/', messengerBotToken: BOT_TOKEN }),
  );
  await call('POST', `${A}/activate`, activationBody('byok', { messengerBotToken: BOT_TOKEN }));
  await h.runtime.idle();
  await call('GET', A);
  await call('GET', `${A}/status`);
  await call('GET', '/api/v1/assistants');
  await call('POST', `${A}/stop`);
  await call('PATCH', A, { messengerBotToken: NEW_BOT, modelApiKey: NEW_KEY });
  await call('PATCH', A, { messengerBotToken: 'bad-shape-token-secretish', modelId: 'nope' });
  await call('POST', `${A}/redeploy`);
  await h.runtime.idle();
  await call('GET', `${A}/models`, undefined, { authorization: `Bearer ${key}` });
  await call(
    'POST',
    `${A}/chat/completions`,
    { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
    { authorization: `Bearer ${key}` },
  );
  await call('GET', '/api/v1/assistants', undefined, { 'x-api-key': `${key}x` });
  await call('DELETE', A);

  const secrets = [BOT_TOKEN, MODEL_KEY, NEW_BOT, NEW_KEY, key, 'bad-shape-token-secretish'];
  const logText = h.logs.join('');
  assert.ok(h.logs.length > 20, 'the requests were logged');
  for (const secret of secrets) {
    for (const b of bodies) assert.ok(!b.includes(secret), `a response contains ${secret.slice(0, 8)}…`);
    assert.ok(!logText.includes(secret), `a log line contains ${secret.slice(0, 8)}…`);
  }
  // The worker did get the rotated secrets: they were stored, just not in clear.
  const spec = [...h.workers.workers.values()][0];
  assert.equal(spec, undefined, 'deleted');
});

test('at rest: tokens and keys are sealed, API keys hashed', async (t) => {
  const h = await harnessFor(t);
  const key = await h.key();
  const { deploymentId, checkoutUrl } = await purchase(h, key);
  await pay(h, checkoutUrl);
  const res = await h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${deploymentId}/activate`,
    headers: { 'x-api-key': key },
    payload: activationBody('byok', { messengerBotToken: BOT_TOKEN }),
  });
  assert.equal(res.statusCode, 200, res.body);
  await h.runtime.idle();
  const dump = JSON.stringify(await h.snapshot());
  for (const secret of [BOT_TOKEN, MODEL_KEY, key])
    assert.ok(!dump.includes(secret), `stored in clear: ${secret.slice(0, 8)}…`);
  const row = await h.runtime.store.db
    .selectFrom('deployments')
    .selectAll()
    .where('id', '=', deploymentId)
    .executeTakeFirstOrThrow();
  assert.match(row.bot_token_enc!, /^v1\./);
  assert.equal(h.runtime.secrets.open(row.bot_token_enc!), BOT_TOKEN);
  assert.equal(h.runtime.secrets.open(row.model_api_key_enc!), MODEL_KEY);
  const keyRow = await h.runtime.store.db.selectFrom('api_keys').selectAll().executeTakeFirstOrThrow();
  assert.match(keyRow.hash, /^[0-9a-f]{64}$/);
  assert.equal(keyRow.prefix, key.slice(0, 12));
});

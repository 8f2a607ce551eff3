// Every endpoint × every error code the spec lists for it, in-process through fastify inject.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, startHarnessWithKey, type Harness, BOT_TOKEN, MODEL_KEY } from './helpers/harness.js';
import { activeDeployment, activationBody, assertError, getRecord, pay, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

const A = '/api/v1/assistants';
const MISSING = '00000000-0000-4000-8000-000000000000';
const hdr = () => ({ 'x-api-key': key });

describe('1. purchase', () => {
  test('201 with a slot and a checkout URL; the slot is a pending prebuy', async () => {
    const res = await h.inject({
      method: 'POST',
      url: `${A}/purchase`,
      headers: hdr(),
      payload: { apiMode: 'managed' },
    });
    assert.equal(res.statusCode, 201);
    const { deploymentId, checkoutUrl } = res.json().data;
    assert.match(deploymentId, /^[0-9a-f-]{36}$/);
    assert.match(checkoutUrl, /^http:\/\/berth\.test\/checkout\/[A-Za-z0-9]{32}$/);
    const rec = await getRecord(h, key, deploymentId);
    assert.equal(rec.status, 'purchased');
    assert.equal(rec.isPrebuy, true);
    assert.equal(rec.paymentStatus, 'pending');
    assert.equal(rec.paymentSubscriptionId, '');
    assert.equal(rec.currentPeriodEnd, rec.createdAt);
    assert.equal(rec.modelProvider, 'openrouter');
    assert.equal(rec.channelType, 'telegram');
    assert.equal(rec.workerUrl, null);
  });
  test('400 INVALID_REQUEST for a missing key, an unknown key, a bad mode, a non-object', async () => {
    for (const payload of [{}, { apiMode: 'byok', extra: 1 }, { apiMode: 'gold' }, [], 'byok']) {
      const res = await h.inject({ method: 'POST', url: `${A}/purchase`, headers: hdr(), payload: payload as never });
      assertError(res, 400, 'INVALID_REQUEST');
    }
    const bad = await h.inject({
      method: 'POST',
      url: `${A}/purchase`,
      headers: { ...hdr(), 'content-type': 'application/json' },
      payload: '{"apiMode":',
    });
    assertError(bad, 400, 'INVALID_REQUEST');
    const unknown = await h.inject({
      method: 'POST',
      url: `${A}/purchase`,
      headers: hdr(),
      payload: { apiMode: 'byok', colour: 'red' },
    });
    assert.match(unknown.json().error.message, /unknown key "colour"/);
  });
  test('401 UNAUTHORIZED without a key', async () => {
    assertError(
      await h.inject({ method: 'POST', url: `${A}/purchase`, payload: { apiMode: 'byok' } }),
      401,
      'UNAUTHORIZED',
    );
  });
  test('500 PAYMENT_NOT_CONFIGURED when the mode has no price, and nothing is written', async () => {
    const s = await startHarness({
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_unused',
      STRIPE_WEBHOOK_SECRET: 'whsec_unused',
      STRIPE_PRICE_BYOK: 'price_byok',
    });
    try {
      const k = await s.key();
      const before = await s.snapshot();
      const res = await s.inject({
        method: 'POST',
        url: `${A}/purchase`,
        headers: { 'x-api-key': k },
        payload: { apiMode: 'managed' },
      });
      assertError(res, 500, 'PAYMENT_NOT_CONFIGURED');
      assert.match(res.json().error.message, /STRIPE_PRICE_MANAGED/);
      assert.deepEqual(await s.snapshot(), before);
    } finally {
      await s.close();
    }
  });
});

describe('2. activate', () => {
  test('200 deploying, then active once the worker is up; secrets sealed, not echoed', async () => {
    const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
    await pay(h, checkoutUrl);
    let release!: () => void;
    h.workers.gate = new Promise((r) => {
      release = r;
    });
    const res = await h.inject({
      method: 'POST',
      url: `${A}/${deploymentId}/activate`,
      headers: hdr(),
      payload: activationBody('byok', { callbackUrl: 'https://hooks.example.com/berth', messengerBotToken: BOT_TOKEN }),
    });
    assert.equal(res.statusCode, 200);
    const rec = res.json().data;
    assert.equal(rec.status, 'deploying');
    assert.equal(rec.isPrebuy, false);
    assert.equal(rec.name, 'Helper');
    assert.equal(rec.modelProvider, 'openai');
    assert.equal(rec.modelId, 'gpt-4o-mini');
    assert.equal(rec.userCallbackUrl, 'https://hooks.example.com/berth');
    assert.ok(!res.body.includes(BOT_TOKEN));
    release();
    h.workers.gate = undefined;
    await h.runtime.idle();
    const after = await getRecord(h, key, deploymentId);
    assert.equal(after.status, 'active');
    assert.match(after.workerUrl, /^http:\/\//);
    const spec = h.workers.workers.get(after.workerName)!;
    assert.deepEqual(spec.channels, [{ type: 'telegram', botToken: BOT_TOKEN }]);
    // One meter (decision 0012): a byok worker calls the control plane's model gateway with its own
    // credential; the owner's provider key stays sealed in the control plane.
    assert.match(spec.model.baseUrl, /\/gateway\/v1$/);
    assert.match(spec.model.apiKey ?? '', /^bgw_/);
    assert.ok(!JSON.stringify(spec).includes(MODEL_KEY));
  });
  test('managed mode forces the router provider and ignores a model key', async () => {
    const { deploymentId, checkoutUrl } = await purchase(h, key, 'managed');
    await pay(h, checkoutUrl);
    const res = await h.inject({
      method: 'POST',
      url: `${A}/${deploymentId}/activate`,
      headers: hdr(),
      payload: activationBody('managed', { modelProvider: 'openai', modelApiKey: 'sk-ignored-key-123' }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.modelProvider, 'openrouter');
    const row = await h.runtime.store.db
      .selectFrom('deployments')
      .select('model_api_key_enc')
      .where('id', '=', deploymentId)
      .executeTakeFirst();
    assert.equal(row!.model_api_key_enc, null);
  });
  test('400 INVALID_REQUEST for schema failures, including callbackUrl rules', async () => {
    const { deploymentId, checkoutUrl } = await purchase(h, key);
    await pay(h, checkoutUrl);
    const bodies = [
      {},
      activationBody('byok', { name: '' }),
      activationBody('byok', { name: 'x'.repeat(101) }),
      activationBody('byok', { unexpected: true }),
      activationBody('byok', { modelId: 42 }),
      activationBody('byok', { callbackUrl: 'http://hooks.example.com/x' }),
      activationBody('byok', { callbackUrl: 'https://127.0.0.1/x' }),
      activationBody('byok', { callbackUrl: 'https://[::1]/x' }),
      activationBody('byok', { callbackUrl: 'https://192.168.1.4/x' }),
      activationBody('byok', { callbackUrl: `https://example.com/${'a'.repeat(2040)}` }),
    ];
    for (const payload of bodies)
      assertError(
        await h.inject({ method: 'POST', url: `${A}/${deploymentId}/activate`, headers: hdr(), payload }),
        400,
        'INVALID_REQUEST',
      );
    assert.equal((await getRecord(h, key, deploymentId)).status, 'purchased');
  });
  test('400 INVALID_INPUT when the payload does not fit the mode', async () => {
    const { deploymentId, checkoutUrl } = await purchase(h, key);
    await pay(h, checkoutUrl);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [activationBody('byok', { modelApiKey: undefined }), /modelApiKey is required/],
      [activationBody('byok', { modelProvider: undefined }), /modelProvider is required/],
      [activationBody('byok', { modelProvider: 'acme' }), /Unknown model provider "acme"/],
      [activationBody('byok', { modelId: 'gpt-9000' }), /not offered by provider "openai"/],
      [activationBody('byok', { messengerBotToken: 'not-a-token' }), /Telegram bot token/],
    ];
    for (const [payload, message] of cases) {
      const res = await h.inject({
        method: 'POST',
        url: `${A}/${deploymentId}/activate`,
        headers: hdr(),
        payload: JSON.parse(JSON.stringify(payload)),
      });
      assertError(res, 400, 'INVALID_INPUT');
      assert.match(res.json().error.message, message);
    }
    const managed = await purchase(h, key, 'managed');
    await pay(h, managed.checkoutUrl);
    const res = await h.inject({
      method: 'POST',
      url: `${A}/${managed.deploymentId}/activate`,
      headers: hdr(),
      payload: activationBody('managed', { modelId: 'gpt-4o-mini' }),
    });
    assertError(res, 400, 'INVALID_INPUT');
    assert.match(res.json().error.message, /openrouter/);
  });
  test('409 INVALID_STATE before checkout and after activation', async () => {
    const { deploymentId } = await purchase(h, key);
    const unpaid = await h.inject({
      method: 'POST',
      url: `${A}/${deploymentId}/activate`,
      headers: hdr(),
      payload: activationBody('byok'),
    });
    assertError(unpaid, 409, 'INVALID_STATE');
    assert.match(unpaid.json().error.message, /checkout is not completed/i);
    const id = await activeDeployment(h, key);
    assertError(
      await h.inject({ method: 'POST', url: `${A}/${id}/activate`, headers: hdr(), payload: activationBody('byok') }),
      409,
      'INVALID_STATE',
    );
  });
  test("404 NOT_FOUND for a missing id, a non-UUID id and another user's slot", async () => {
    const other = await h.key();
    const theirs = await purchase(h, other);
    for (const id of [MISSING, 'not-a-uuid', theirs.deploymentId]) {
      assertError(
        await h.inject({ method: 'POST', url: `${A}/${id}/activate`, headers: hdr(), payload: activationBody('byok') }),
        404,
        'NOT_FOUND',
      );
    }
  });
});

describe('3-5. status, list, get', () => {
  test('status view has exactly the four fields', async () => {
    const id = await activeDeployment(h, key);
    const res = await h.inject({ method: 'GET', url: `${A}/${id}/status`, headers: hdr() });
    assert.equal(res.statusCode, 200);
    const view = res.json().data;
    assert.deepEqual(Object.keys(view).sort(), ['id', 'status', 'statusMessage', 'workerUrl']);
    assert.equal(view.status, 'active');
  });
  test('a failed deploy says why', async () => {
    h.workers.createFailure = 'Telegram rejected the bot token (401 Unauthorized)';
    try {
      const id = await activeDeployment(h, key);
      const view = (await h.inject({ method: 'GET', url: `${A}/${id}/status`, headers: hdr() })).json().data;
      assert.equal(view.status, 'failed');
      assert.match(view.statusMessage, /Telegram rejected the bot token/);
    } finally {
      h.workers.createFailure = undefined;
    }
  });
  test('list: own deployments only, newest first, abandoned checkouts hidden', async () => {
    const clockStart = Date.now();
    let offset = 0;
    const s = await startHarness({}, { now: () => new Date(clockStart + offset) });
    try {
      const k2 = await s.key();
      const old = await purchase(s, k2);
      const oldPaid = await purchase(s, k2);
      await pay(s, oldPaid.checkoutUrl);
      offset = 61 * 60 * 1000;
      const fresh = await purchase(s, k2);
      const ids = (await s.inject({ method: 'GET', url: A, headers: { 'x-api-key': k2 } }))
        .json()
        .data.map((d: { id: string }) => d.id);
      assert.deepEqual(ids, [fresh.deploymentId, oldPaid.deploymentId]);
      assert.ok(!ids.includes(old.deploymentId));
      const stranger = await s.key();
      assert.deepEqual((await s.inject({ method: 'GET', url: A, headers: { 'x-api-key': stranger } })).json().data, []);
    } finally {
      await s.close();
    }
  });
  test('404 for get and status of what the caller does not own', async () => {
    const theirs = await purchase(h, await h.key());
    for (const url of [
      `${A}/${MISSING}`,
      `${A}/${MISSING}/status`,
      `${A}/${theirs.deploymentId}`,
      `${A}/${theirs.deploymentId}/status`,
      `${A}/zzz`,
      `${A}/zzz/status`,
    ]) {
      assertError(await h.inject({ method: 'GET', url, headers: hdr() }), 404, 'NOT_FOUND');
    }
  });
});

describe('6. update', () => {
  test('allowed in purchased, stopped and failed; changes fields and updatedAt', async () => {
    const { deploymentId } = await purchase(h, key);
    const before = await getRecord(h, key, deploymentId);
    // updatedAt has millisecond resolution: a few milliseconds later, a change must show.
    await new Promise((r) => setTimeout(r, 5));
    const res = await h.inject({
      method: 'PATCH',
      url: `${A}/${deploymentId}`,
      headers: hdr(),
      payload: { name: 'Renamed', modelProvider: 'groq', modelId: 'llama-3.3-70b-versatile' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const rec = res.json().data;
    assert.equal(rec.name, 'Renamed');
    assert.equal(rec.modelProvider, 'groq');
    assert.ok(rec.updatedAt > before.updatedAt);
  });
  test('409 INVALID_STATE while active or deploying', async () => {
    const id = await activeDeployment(h, key);
    assertError(
      await h.inject({ method: 'PATCH', url: `${A}/${id}`, headers: hdr(), payload: { name: 'x' } }),
      409,
      'INVALID_STATE',
    );
  });
  test('400 INVALID_REQUEST for an empty body, unknown keys or bad types', async () => {
    const { deploymentId } = await purchase(h, key);
    for (const payload of [{}, { nickname: 'x' }, { name: '' }, { name: 7 }]) {
      assertError(
        await h.inject({ method: 'PATCH', url: `${A}/${deploymentId}`, headers: hdr(), payload }),
        400,
        'INVALID_REQUEST',
      );
    }
    assertError(
      await h.inject({ method: 'PATCH', url: `${A}/${deploymentId}`, headers: hdr() }),
      400,
      'INVALID_REQUEST',
    );
  });
  test('400 INVALID_INPUT: provider/model not allowed for the mode; managed rejects modelApiKey', async () => {
    const byok = await activeDeployment(h, key);
    await h.inject({ method: 'POST', url: `${A}/${byok}/stop`, headers: hdr() });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ modelId: 'not-a-model' }, /not offered by provider "openai"/],
      [{ modelProvider: 'groq' }, /Send a modelId/],
      [{ modelProvider: 'nobody', modelId: 'x' }, /Unknown model provider/],
      [{ messengerBotToken: 'abc' }, /Telegram bot token/],
    ];
    for (const [payload, message] of cases) {
      const res = await h.inject({ method: 'PATCH', url: `${A}/${byok}`, headers: hdr(), payload });
      assertError(res, 400, 'INVALID_INPUT');
      assert.match(res.json().error.message, message);
    }
    const managed = await activeDeployment(h, key, 'managed');
    await h.inject({ method: 'POST', url: `${A}/${managed}/stop`, headers: hdr() });
    assertError(
      await h.inject({ method: 'PATCH', url: `${A}/${managed}`, headers: hdr(), payload: { modelApiKey: 'sk-no' } }),
      400,
      'INVALID_INPUT',
    );
    const forced = await h.inject({
      method: 'PATCH',
      url: `${A}/${managed}`,
      headers: hdr(),
      payload: { modelProvider: 'openai', modelId: 'google/gemini-2.5-flash' },
    });
    assert.equal(forced.statusCode, 200, forced.body);
    assert.equal(forced.json().data.modelProvider, 'openrouter');
    assert.equal(forced.json().data.modelId, 'google/gemini-2.5-flash');
  });
  test("404 for another user's deployment", async () => {
    const theirs = await purchase(h, await h.key());
    assertError(
      await h.inject({
        method: 'PATCH',
        url: `${A}/${theirs.deploymentId}`,
        headers: hdr(),
        payload: { name: 'mine' },
      }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('7. redeploy', () => {
  test('from active, stopped and failed to deploying; callbackUrl replaces userCallbackUrl', async () => {
    const id = await activeDeployment(h, key);
    const res = await h.inject({
      method: 'POST',
      url: `${A}/${id}/redeploy`,
      headers: hdr(),
      payload: { callbackUrl: 'https://new.example.com/cb' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.status, 'deploying');
    assert.equal(res.json().data.userCallbackUrl, 'https://new.example.com/cb');
    await h.runtime.idle();
    assert.equal((await getRecord(h, key, id)).status, 'active');
    await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr() });
    const again = await h.inject({ method: 'POST', url: `${A}/${id}/redeploy`, headers: hdr() });
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(again.json().data.userCallbackUrl, 'https://new.example.com/cb');
    await h.runtime.idle();
  });
  test('409 INVALID_STATE from purchased or deploying', async () => {
    const { deploymentId } = await purchase(h, key);
    assertError(
      await h.inject({ method: 'POST', url: `${A}/${deploymentId}/redeploy`, headers: hdr() }),
      409,
      'INVALID_STATE',
    );
    let release!: () => void;
    h.workers.gate = new Promise((r) => {
      release = r;
    });
    const p = await purchase(h, key);
    await pay(h, p.checkoutUrl);
    await h.inject({
      method: 'POST',
      url: `${A}/${p.deploymentId}/activate`,
      headers: hdr(),
      payload: activationBody('byok'),
    });
    assertError(
      await h.inject({ method: 'POST', url: `${A}/${p.deploymentId}/redeploy`, headers: hdr() }),
      409,
      'INVALID_STATE',
    );
    release();
    h.workers.gate = undefined;
    await h.runtime.idle();
  });
  test('400 INVALID_REQUEST for a bad callbackUrl or unknown keys', async () => {
    const id = await activeDeployment(h, key);
    for (const payload of [{ callbackUrl: 'https://localhost/x' }, { callbackUrl: 'nope' }, { other: 1 }]) {
      assertError(
        await h.inject({ method: 'POST', url: `${A}/${id}/redeploy`, headers: hdr(), payload }),
        400,
        'INVALID_REQUEST',
      );
    }
    assert.equal((await getRecord(h, key, id)).userCallbackUrl, null);
  });
  test('404 for a missing deployment', async () => {
    assertError(await h.inject({ method: 'POST', url: `${A}/${MISSING}/redeploy`, headers: hdr() }), 404, 'NOT_FOUND');
  });
});

describe('8-9. stop and delete', () => {
  test('stop deletes the worker and answers stopped; an upstream 404 counts as success', async () => {
    const id = await activeDeployment(h, key);
    const name = (await getRecord(h, key, id)).workerName;
    assert.ok(h.workers.workers.has(name));
    const res = await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr() });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().data.status, 'stopped');
    assert.equal(res.json().data.workerUrl, null);
    assert.ok(!h.workers.workers.has(name));
    const again = await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr(), payload: {} });
    assert.equal(again.statusCode, 200, 'stopping when the worker is already gone (404) succeeds');
  });
  test('502 WORKER_DELETE_FAILED leaves the record as it was', async () => {
    const id = await activeDeployment(h, key);
    const before = await getRecord(h, key, id);
    h.workers.deleteStatus = 500;
    try {
      assertError(
        await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr() }),
        502,
        'WORKER_DELETE_FAILED',
      );
      assertError(await h.inject({ method: 'DELETE', url: `${A}/${id}`, headers: hdr() }), 502, 'WORKER_DELETE_FAILED');
      assert.deepEqual(await getRecord(h, key, id), before);
    } finally {
      h.workers.deleteStatus = undefined;
    }
  });
  test('delete removes the record; an upstream 404 counts as success', async () => {
    const id = await activeDeployment(h, key);
    h.workers.deleteStatus = 404;
    h.workers.workers.clear();
    try {
      const res = await h.inject({ method: 'DELETE', url: `${A}/${id}`, headers: hdr() });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { data: { success: true } });
    } finally {
      h.workers.deleteStatus = undefined;
    }
    assertError(await h.inject({ method: 'GET', url: `${A}/${id}`, headers: hdr() }), 404, 'NOT_FOUND');
  });
  test('404 for missing and foreign deployments', async () => {
    const theirs = await activeDeployment(h, await h.key());
    for (const id of [MISSING, theirs]) {
      assertError(await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr() }), 404, 'NOT_FOUND');
      assertError(await h.inject({ method: 'DELETE', url: `${A}/${id}`, headers: hdr() }), 404, 'NOT_FOUND');
    }
    assert.ok(h.workers.workers.size > 0);
  });
});

describe('10-11. chat and models (control-plane checks)', () => {
  // A one-message chat turn and a models call on deployment `id`, with the owner's key.
  const chat = (id: string) =>
    h.inject({
      method: 'POST',
      url: `${A}/${id}/chat/completions`,
      headers: hdr(),
      payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }] },
    });
  const models = (id: string) => h.inject({ method: 'GET', url: `${A}/${id}/models`, headers: hdr() });
  test('models lists the single alias assistant-agent, with Bearer or X-API-Key', async () => {
    const id = await activeDeployment(h, key);
    for (const headers of [hdr(), { authorization: `Bearer ${key}` }]) {
      const res = await h.inject({ method: 'GET', url: `${A}/${id}/models`, headers });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.object, 'list');
      assert.equal(body.data.length, 1);
      assert.equal(body.data[0].id, 'assistant-agent');
      assert.equal(body.data[0].object, 'model');
      assert.equal(typeof body.data[0].created, 'number');
    }
  });
  test('ASSISTANT_NOT_READY (409) unless active; INVALID_REQUEST (400) for bad bodies', async () => {
    const { deploymentId } = await purchase(h, key);
    const body = { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] };
    assertError(
      await h.inject({ method: 'POST', url: `${A}/${deploymentId}/chat/completions`, headers: hdr(), payload: body }),
      409,
      'ASSISTANT_NOT_READY',
    );
    const id = await activeDeployment(h, key);
    for (const payload of [
      '',
      '{"model":',
      JSON.stringify({ messages: body.messages }),
      JSON.stringify({ model: 'gpt-4o', messages: body.messages }),
      JSON.stringify({ model: 'assistant-agent' }),
      JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'wizard', content: 'x' }] }),
    ]) {
      const res = await h.inject({
        method: 'POST',
        url: `${A}/${id}/chat/completions`,
        headers: { ...hdr(), 'content-type': 'application/json' },
        payload,
      });
      assertError(res, 400, 'INVALID_REQUEST');
    }
  });
  test('BAD_GATEWAY (502) when the worker refuses the connection', async () => {
    const id = await activeDeployment(h, key);
    const res = await h.inject({
      method: 'POST',
      url: `${A}/${id}/chat/completions`,
      headers: { authorization: `Bearer ${key}` },
      payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
    });
    assertError(res, 502, 'BAD_GATEWAY');
  });
  test('UNSUPPORTED_FRAMEWORK (400) for deployments of another framework', async () => {
    const id = await activeDeployment(h, key);
    await h.runtime.store.db
      .updateTable('deployments')
      .set({ framework: 'other-agent' })
      .where('id', '=', id)
      .execute();
    assertError(await models(id), 400, 'UNSUPPORTED_FRAMEWORK');
    assertError(await chat(id), 400, 'UNSUPPORTED_FRAMEWORK');
  });
  test('404 for missing and foreign deployments', async () => {
    const theirs = await activeDeployment(h, await h.key());
    for (const id of [MISSING, theirs, 'nope']) {
      assertError(await models(id), 404, 'NOT_FOUND');
      assertError(await chat(id), 404, 'NOT_FOUND');
    }
  });
});

describe('INTERNAL_ERROR', () => {
  test('every endpoint answers an opaque 500 with a request id when the store is gone', async () => {
    const s = await startHarness();
    const k = await s.key();
    const id = await activeDeployment(s, k);
    await s.runtime.runner.stop();
    await s.runtime.store.db.destroy();
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `${A}/purchase`, { apiMode: 'byok' }],
      ['POST', `${A}/${id}/activate`, activationBody('byok')],
      ['GET', `${A}/${id}/status`],
      ['GET', A],
      ['GET', `${A}/${id}`],
      ['PATCH', `${A}/${id}`, { name: 'x' }],
      ['POST', `${A}/${id}/redeploy`],
      ['POST', `${A}/${id}/stop`],
      ['DELETE', `${A}/${id}`],
      ['POST', `${A}/${id}/chat/completions`, { model: 'assistant-agent', messages: [] }],
      ['GET', `${A}/${id}/models`],
    ];
    for (const [method, url, payload] of calls) {
      const res = await s.inject({
        method: method as 'GET',
        url,
        headers: { 'x-api-key': k },
        ...(payload ? { payload: payload as object } : {}),
      });
      assertError(res, 500, 'INTERNAL_ERROR');
      assert.match(res.json().error.details.requestId, /^[0-9a-f-]{36}$/);
      assert.ok(!/kysely|sqlite|driver|stack/i.test(res.body), res.body);
    }
    assert.ok(s.logs.some((l) => l.includes('unhandled error')));
    // The whole runtime, not only the app: its settle queue, reconciler and gateway listener too,
    // or they keep this file's process alive (a settlement retries until written, and the store is gone).
    await s.close();
  });
});

// PUT …/model (DESIGN §9.3) through the whole product: the control plane, the real agent host and
// FakeModelProvider (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL). On an active assistant the
// very next model call uses the new model while the status stays active; a model the catalog does
// not offer is refused with PATCH's own error; elsewhere the spec's PATCH state rule holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';
import { runBerthWithKey } from './helpers/cli.js';
import { tempDirForFile } from './helpers/temp-dir.js';

const BOT = '7300000061:AAmodelLiveBotTokenForTheE2eTestsxx_x';
let e: E2E;
let id: string;
const configHome = tempDirForFile('berth-cli-model-');

// Both models of `fakeai` and openrouter's router/fake-model answer from the rig's provider.
before(async () => ({ e, id } = await startWithActiveBot(BOT, { fakeaiModels: ['fake-model-1', 'fake-model-2'] })));
after(async () => {
  await e?.close();
});

const chat = (text: string) =>
  e.api('POST', `/api/v1/assistants/${id}/chat/completions`, {
    model: 'assistant-agent',
    messages: [{ role: 'user', content: text }],
  });
const modelOf = (text: string) =>
  e.provider.requests.findLast((r) => r.body.messages.some((m: { content?: string }) => m.content === text))?.body
    .model;

test('an active assistant takes a new model live: the next model call uses it and the status stays active', async () => {
  assert.equal((await chat('before the change')).status, 200);
  assert.equal(modelOf('before the change'), 'fake-model-1');

  const res = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'fake-model-2' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.modelId, 'fake-model-2');
  assert.equal(res.json.data.status, 'active');

  // At once, not after the gateway's cache of the deployment lapses.
  assert.equal((await chat('right after the change')).status, 200);
  assert.equal(modelOf('right after the change'), 'fake-model-2');
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data.status, 'active');
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}`)).json.data.modelId, 'fake-model-2');
});

test("berth assistants model changes it live too, and a bad model gets the API's sentence", async () => {
  const berth = (args: string[]) => runBerthWithKey(e, configHome, args);
  const ok = await berth(['assistants', 'model', id, '--model', 'fake-model-1']);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stderr, /uses the new model from its next message/);
  assert.equal((await chat('after the cli change')).status, 200);
  assert.equal(modelOf('after the cli change'), 'fake-model-1');
  const bad = await berth(['assistants', 'model', id, '--model', 'no-such-model']);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /Model "no-such-model" is not offered/);
  const back = await berth(['assistants', 'model', id, '--model', 'fake-model-2', '--json']);
  assert.equal(JSON.parse(back.stdout).modelId, 'fake-model-2');
});

test('a model the catalog does not offer: the same 400 as PATCH, and nothing changes', async () => {
  const bad = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'no-such-model' });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.json.error.code, 'INVALID_INPUT');
  assert.match(bad.json.error.message, /Model "no-such-model" is not offered by provider "fakeai"/);
  const provider = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelProvider: 'nope', modelId: 'x' });
  assert.equal(provider.status, 400);
  assert.match(provider.json.error.message, /Unknown model provider "nope"/);
  const extra = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'fake-model-1', name: 'x' });
  assert.equal(extra.status, 400);
  assert.equal(extra.json.error.code, 'INVALID_REQUEST');
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}`)).json.data.modelId, 'fake-model-2');

  // PATCH on a stopped assistant answers the very same error for the same model.
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/stop`)).status, 200);
  const patch = await e.api('PATCH', `/api/v1/assistants/${id}`, { modelId: 'no-such-model' });
  const put = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'no-such-model' });
  assert.equal(put.status, patch.status);
  assert.deepEqual(put.json.error, patch.json.error);
});

test('a stopped assistant changes its model as PATCH does; the next deploy uses it', async () => {
  const res = await e.api('PUT', `/api/v1/assistants/${id}/model`, { modelId: 'fake-model-1' });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.data.status, 'stopped');
  assert.equal((await e.api('POST', `/api/v1/assistants/${id}/redeploy`, {})).status, 200);
  await e.waitForStatus(id, ['active']);
  assert.equal((await chat('after the redeploy')).status, 200);
  assert.equal(modelOf('after the redeploy'), 'fake-model-1');
});

// An assistant's settings (DESIGN §7.1): versions, rollback, bad input that changes nothing, other
// tenants, concurrent writers, and the push to a running worker. Real store (SQLite, or PostgreSQL
// with BERTH_TEST_DATABASE_URL), real routes, the fake workers backend.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SYSTEM_PROMPT, defaultSettings, type AssistantSettings } from '@berth/contracts/settings';
import { SettingsRepo } from '../src/platform/store/settings.js';
import { startHarnessWithKey, type Harness } from './helpers/harness.js';
import { activeDeployment, assertError, getRecord, pay, purchase } from './helpers/api.js';

let h: Harness;
let key: string;
const A = '/api/v1/assistants';
const hdr = (k = key) => ({ 'x-api-key': k });
const withPrompt = (systemPrompt: string): AssistantSettings => ({ ...defaultSettings(), systemPrompt });

before(async () => ({ h, key } = await startHarnessWithKey()));
after(async () => h.close());

const put = (id: string, payload: unknown, k = key) =>
  h.inject({ method: 'PUT', url: `${A}/${id}/settings`, headers: hdr(k), payload: payload as never });
const get = (id: string, k = key) => h.inject({ method: 'GET', url: `${A}/${id}/settings`, headers: hdr(k) });
const versions = (id: string) => h.inject({ method: 'GET', url: `${A}/${id}/settings/versions`, headers: hdr() });
const rollback = (id: string, payload: unknown, k = key) =>
  h.inject({ method: 'POST', url: `${A}/${id}/settings/rollback`, headers: hdr(k), payload: payload as never });
const settingsRows = () =>
  h.runtime.store.db.selectFrom('assistant_settings').selectAll().orderBy('deployment_id').orderBy('version').execute();

describe('settings of a slot', () => {
  let id: string;
  before(async () => {
    ({ deploymentId: id } = await purchase(h, key, 'byok'));
  });

  test('a new deployment has version 1 with the defaults', async () => {
    const res = await get(id);
    assert.equal(res.statusCode, 200, res.body);
    const { version, updatedAt, ...settings } = res.json().data;
    assert.equal(version, 1);
    assert.ok(!Number.isNaN(Date.parse(updatedAt)));
    assert.deepEqual(settings, defaultSettings());
    assert.equal(settings.systemPrompt, DEFAULT_SYSTEM_PROMPT);
  });

  test('bad documents: 400 INVALID_REQUEST and nothing stored', async () => {
    const before = await settingsRows();
    const d = defaultSettings();
    const bad: unknown[] = [
      { ...d, colour: 'red' },
      { ...d, tools: { ...d.tools, shell: true } },
      { ...d, systemPrompt: 'x'.repeat(20_001) },
      { ...d, language: 'english please' },
      { ...d, access: { ...d.access, perUserDailyReplies: -1 } },
      { ...d, historyChars: 10 },
      { ...d, groups: 'sometimes' },
      { systemPrompt: 'only a prompt' },
      [],
    ];
    for (const payload of bad) assertError(await put(id, payload), 400, 'INVALID_REQUEST');
    assert.deepEqual(await settingsRows(), before);
    assert.equal((await get(id)).json().data.version, 1);
  });

  test('PUT stores the next version; versions newest first; rollback restores as a new version', async () => {
    const res = await put(id, withPrompt('You are Ada, a terse pirate.'));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.version, 2);
    assert.equal(res.json().data.systemPrompt, 'You are Ada, a terse pirate.');
    assert.equal((await get(id)).json().data.systemPrompt, 'You are Ada, a terse pirate.');
    const list = (await versions(id)).json().data;
    assert.deepEqual(
      list.map((v: { version: number }) => v.version),
      [2, 1],
    );
    assert.equal(list[1].systemPrompt, DEFAULT_SYSTEM_PROMPT);

    const back = await rollback(id, { version: 1 });
    assert.equal(back.statusCode, 200, back.body);
    assert.equal(back.json().data.version, 3);
    assert.equal(back.json().data.systemPrompt, DEFAULT_SYSTEM_PROMPT);
    assert.equal((await get(id)).json().data.systemPrompt, DEFAULT_SYSTEM_PROMPT);
  });

  test('rollback to a version that does not exist: 404 naming the kept versions, nothing stored', async () => {
    const before = await settingsRows();
    const res = await rollback(id, { version: 99 });
    assertError(res, 404, 'NOT_FOUND');
    assert.match(res.json().error.message, /version 99 does not exist.*3, 2, 1/);
    for (const payload of [{ version: 0 }, { version: 'two' }, {}, { version: 2, extra: true }])
      assertError(await rollback(id, payload), 400, 'INVALID_REQUEST');
    assert.deepEqual(await settingsRows(), before);
  });

  test('only the last 10 versions are kept', async () => {
    for (let i = 0; i < 12; i++) assert.equal((await put(id, withPrompt(`prompt ${i}`))).statusCode, 200);
    const list = (await versions(id)).json().data as Array<{ version: number; systemPrompt: string }>;
    assert.equal(list.length, 10);
    assert.deepEqual(
      list.map((v) => v.version),
      [15, 14, 13, 12, 11, 10, 9, 8, 7, 6],
    );
    assert.equal(list[0]!.systemPrompt, 'prompt 11');
    assert.equal((await settingsRows()).filter((r) => r.deployment_id === id).length, 10);
    assertError(await rollback(id, { version: 2 }), 404, 'NOT_FOUND');
  });

  test("another tenant's assistant is 404 on every settings route, and nothing changes", async () => {
    const other = await h.key();
    const before = await settingsRows();
    assertError(await get(id, other), 404, 'NOT_FOUND');
    assertError(await put(id, withPrompt('stolen'), other), 404, 'NOT_FOUND');
    assertError(await rollback(id, { version: 6 }, other), 404, 'NOT_FOUND');
    const list = await h.inject({ method: 'GET', url: `${A}/${id}/settings/versions`, headers: hdr(other) });
    assertError(list, 404, 'NOT_FOUND');
    assert.deepEqual(await settingsRows(), before);
  });

  test('concurrent PUTs never share a version number', async () => {
    const { deploymentId } = await purchase(h, key, 'byok');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(deploymentId, withPrompt(`writer ${i}`))),
    );
    for (const r of results) assert.equal(r.statusCode, 200, r.body);
    const got = results.map((r) => r.json().data.version as number).sort((a, b) => a - b);
    assert.deepEqual(got, [2, 3, 4, 5, 6, 7, 8, 9]);
    const list = (await versions(deploymentId)).json().data as Array<{ version: number; systemPrompt: string }>;
    assert.equal(list.length, 9);
    // Each stored version holds the document of the writer that got that number.
    for (const r of results) {
      const v = r.json().data;
      assert.equal(list.find((x) => x.version === v.version)!.systemPrompt, v.systemPrompt);
    }
  });
});

describe('settings reach the worker', () => {
  test('PUT on an active assistant pushes the document to the running worker; status stays active', async () => {
    const id = await activeDeployment(h, key);
    const rec = await getRecord(h, key, id);
    assert.deepEqual(h.workers.workers.get(rec.workerName ?? `asst-${id}`)?.settings, defaultSettings());
    const pushes = h.workers.settingsPushes.length;
    const res = await put(id, withPrompt('You are live.'));
    assert.equal(res.statusCode, 200, res.body);
    const pushed = h.workers.settingsPushes.slice(pushes);
    assert.equal(pushed.length, 1);
    assert.equal(pushed[0]!.settings.systemPrompt, 'You are live.');
    const after = await getRecord(h, key, id);
    assert.equal(after.status, 'active');
    assert.equal(after.updatedAt, rec.updatedAt, 'the deployment itself was not touched (no redeploy)');
  });

  test('a stopped assistant gets nothing pushed (no worker comes back); the next deploy uses the newest version', async () => {
    const id = await activeDeployment(h, key);
    assert.equal((await h.inject({ method: 'POST', url: `${A}/${id}/stop`, headers: hdr() })).statusCode, 200);
    await h.runtime.idle();
    const workerName = `asst-${id}`;
    assert.equal(h.workers.workers.has(workerName), false);
    const pushes = h.workers.settingsPushes.length;
    assert.equal((await put(id, withPrompt('For the next deploy.'))).statusCode, 200);
    assert.equal(h.workers.settingsPushes.length, pushes);
    assert.equal(h.workers.workers.has(workerName), false, 'the settings change started a worker');
    assert.equal((await getRecord(h, key, id)).status, 'stopped');
    const re = await h.inject({ method: 'POST', url: `${A}/${id}/redeploy`, headers: hdr(), payload: {} });
    assert.equal(re.statusCode, 200, re.body);
    await h.runtime.idle();
    assert.equal(h.workers.workers.get(workerName)?.settings.systemPrompt, 'For the next deploy.');
  });

  test('a PUT racing a delete never brings the worker back', async () => {
    const id = await activeDeployment(h, key);
    const [, del] = await Promise.all([
      put(id, withPrompt('racing')),
      h.inject({ method: 'DELETE', url: `${A}/${id}`, headers: hdr() }),
    ]);
    assert.equal(del.statusCode, 200, del.body);
    await h.runtime.idle();
    assert.equal(h.workers.workers.has(`asst-${id}`), false);
    assertError(await get(id), 404, 'NOT_FOUND');
    assert.equal((await settingsRows()).filter((r) => r.deployment_id === id).length, 0, 'versions left behind');
  });
});

test('a paid slot can take settings before activation', async () => {
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
  await pay(h, checkoutUrl);
  assert.equal((await put(deploymentId, withPrompt('before activation'))).json().data.version, 2);
});

describe('the welcome message (issue 57 R10)', () => {
  let id: string;
  before(async () => {
    ({ deploymentId: id } = await purchase(h, key, 'byok'));
  });

  test('a welcome is counted as Telegram counts it: UTF-16 units, not only spaces (issue 57 R10)', async () => {
    const d = defaultSettings();
    const refused = [
      ['😀'.repeat(2049), 'welcomeMessage must hold more than spaces and at most 4096 UTF-16 code units'],
      ['   \n\t ', 'welcomeMessage must hold more than spaces'],
    ] as const;
    for (const [welcomeMessage, why] of refused) {
      const res = await put(id, { ...d, welcomeMessage });
      assertError(res, 400, 'INVALID_REQUEST');
      assert.ok(res.json().error.message.includes(why), res.json().error.message);
    }
    // 2,048 emoji are 4,096 UTF-16 units: as much as Telegram takes.
    const res = await put(id, { ...d, welcomeMessage: '😀'.repeat(2048) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.welcomeMessage, '😀'.repeat(2048));
  });

  test('a welcome stored before that check becomes the built-in one; the rest of the document stays', async () => {
    const d = defaultSettings();
    const stored = { ...d, systemPrompt: 'You are Bo, stored before issue 57.', welcomeMessage: '😀'.repeat(2049) };
    await new SettingsRepo(h.runtime.store.db).append(id, stored, d, new Date().toISOString());
    const now = (await get(id)).json().data;
    assert.equal(now.systemPrompt, 'You are Bo, stored before issue 57.');
    assert.equal(now.welcomeMessage, null);
  });
});

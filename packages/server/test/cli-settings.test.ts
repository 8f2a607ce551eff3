// berth assistants settings get|set|versions|rollback, pair list|approve, models, and activate
// offering the catalog: the `berth` CLI (in-process, helpers/cli.ts) against a real control plane with
// the real agent host and the loopback fakes (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { defaultSettings } from '@berth/contracts/settings';
import { runBerth, type Run } from './helpers/cli.js';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';

const BOT = '7200000031:AAcliSettingsFakeBotTokenForCliTests_xy';
let e: E2E;
let id: string;
const configHome = tempDirForFile('berth-cli-settings-');

function berth(args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> {
  return runBerth(args, { url: e.url, configHome, ...opts });
}

const withKey = (input?: string) => ({ env: { BERTH_API_KEY: e.key }, ...(input !== undefined ? { input } : {}) });
const json = (r: Run) => JSON.parse(r.stdout);

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => {
  await e.close();
});

test('settings get, set (flags and a whole document), versions and rollback', async () => {
  const got = await berth(['assistants', 'settings', 'get', id, '--json'], withKey());
  assert.equal(got.status, 0, got.stderr);
  assert.equal(json(got).version, 1);
  assert.equal(json(got).systemPrompt, defaultSettings().systemPrompt);

  const set = await berth(
    ['assistants', 'settings', 'set', id, '--prompt', 'You are Ada.', '--daily', '50'],
    withKey(),
  );
  assert.equal(set.status, 0, set.stderr);
  assert.match(set.stdout, /version:\s+2/);
  assert.match(set.stdout, /daily replies:\s+50/);

  const doc = { ...defaultSettings(), systemPrompt: 'From a file.' };
  const fromStdin = await berth(
    ['assistants', 'settings', 'set', id, '--file', '-', '--json'],
    withKey(JSON.stringify(doc)),
  );
  assert.equal(fromStdin.status, 0, fromStdin.stderr);
  assert.equal(json(fromStdin).version, 3);

  const bad = await berth(
    ['assistants', 'settings', 'set', id, '--file', '-'],
    withKey(JSON.stringify({ ...doc, colour: 1 })),
  );
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /INVALID_REQUEST/);

  const versions = await berth(['assistants', 'settings', 'versions', id, '--json'], withKey());
  assert.deepEqual(
    json(versions).map((v: { version: number }) => v.version),
    [3, 2, 1],
  );

  const back = await berth(['assistants', 'settings', 'rollback', id, '--version', '2', '--json'], withKey());
  assert.equal(back.status, 0, back.stderr);
  assert.equal(json(back).version, 4);
  assert.equal(json(back).systemPrompt, 'You are Ada.');
  const missing = await berth(['assistants', 'settings', 'rollback', id, '--version', '99'], withKey());
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /NOT_FOUND/);
  assert.equal((await berth(['assistants', 'settings', 'rollback', id], withKey())).status, 2);
});

test("settings show and set how long a user's messages are gathered into one turn (burstMs)", async () => {
  // A document without the field (every one written before it) shows the agent's default.
  const doc = { ...defaultSettings(), systemPrompt: 'Bursts.' };
  const stored = await berth(['assistants', 'settings', 'set', id, '--file', '-'], withKey(JSON.stringify(doc)));
  assert.equal(stored.status, 0, stored.stderr);
  assert.match(stored.stdout, /burst ms:\s+1500 \(default\)/);

  const set = await berth(['assistants', 'settings', 'set', id, '--burst-ms', '400'], withKey());
  assert.equal(set.status, 0, set.stderr);
  assert.match(set.stdout, /burst ms:\s+400\n/);
  const got = await berth(['assistants', 'settings', 'get', id], withKey());
  assert.match(got.stdout, /burst ms:\s+400\n/);
  assert.match(got.stdout, /prompt:\s+Bursts\./, 'the rest of the document is kept');

  const tooLong = await berth(['assistants', 'settings', 'set', id, '--burst-ms', '20000'], withKey());
  assert.equal(tooLong.status, 2);
  assert.match(tooLong.stderr, /--burst-ms takes a whole number of milliseconds from 0 to 10000/);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}/settings`)).json.data.burstMs, 400, 'nothing stored');

  const back = await berth(['assistants', 'settings', 'set', id, '--burst-ms', 'default', '--json'], withKey());
  assert.equal(back.status, 0, back.stderr);
  assert.equal(json(back).burstMs, undefined, 'the field goes: the default applies again');
});

test("pair list and approve: a stranger's code, approved from the command line", async () => {
  const set = await berth(['assistants', 'settings', 'set', id, '--access', 'pairing'], withKey());
  assert.equal(set.status, 0, set.stderr);
  e.tg.userSends(BOT, 701, { text: 'hi, may I?' });
  const notice = await e.tg.waitForSent((m) => m.chat_id === 701);
  const code = /\b([A-Z2-9]{8})\b/.exec(notice.text)![1]!;
  const list = await berth(['assistants', 'pair', 'list', id], withKey());
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`${code}\\s+701`));
  const ok = await berth(['assistants', 'pair', 'approve', id, code], withKey());
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, /allows 701/);
  const again = await berth(['assistants', 'pair', 'approve', id, code], withKey());
  assert.equal(again.status, 1);
  assert.match(again.stderr, /NOT_FOUND/);
});

test('models lists the catalog with prices; activate without --model offers it (no terminal: a usage error listing it)', async () => {
  const models = await berth(['assistants', 'models', '--mode', 'byok', '--json'], withKey());
  assert.equal(models.status, 0, models.stderr);
  assert.ok(json(models).some((m: { id: string; pricing: unknown }) => m.id === 'fake-model-1' && m.pricing));
  const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const { deploymentId, checkoutUrl } = bought.json.data;
  await request(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const run = await berth(
    ['assistants', 'activate', deploymentId, '--name', 'Picker', '--bot-token', '-'],
    withKey('7200000032:AAanotherCliBotTokenForThePickerTest_x\n'),
  );
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /fake-model-1\s+\$1 \/ \$2/);
});

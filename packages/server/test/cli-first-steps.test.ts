// The CLI's first steps as a newcomer meets them: which version, which account, where to pay for a
// slot bought elsewhere, an activation of an unpaid slot that stops before asking for secrets, and
// hints that name the berth command to run (a spend cap: berth assistants limits).
// The one CLI test file that runs the real bin, a process per command, as a user's shell does; the
// others run the same commands in-process (helpers/cli.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { request } from 'undici';
import { spawnBerth } from './helpers/cli.js';
import { startE2E, type E2E } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';

let e: E2E;
const home = tempDirForFile('berth-cli-first-');

const berth = (args: string[], input = '') =>
  spawnBerth(args, { url: e.url, configHome: home, env: { BERTH_API_KEY: e.key }, input });

before(async () => {
  e = await startE2E();
});
after(async () => {
  await e.close();
});

test('berth --version prints the package version', async () => {
  const run = await berth(['--version']);
  assert.equal(run.status, 0, run.stderr);
  const { version } = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../cli/package.json'), 'utf8'));
  assert.match(run.stdout, new RegExp(`^berth ${version.replaceAll('.', '\\.')} \\(node v\\d+`));
});

test('keys whoami names the account behind the key', async () => {
  const run = await berth(['keys', 'whoami']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout.split('\n')[0]!, /^e2e-\d+@example\.com$/);
  const json = JSON.parse((await berth(['keys', 'whoami', '--json'])).stdout);
  assert.match(json.email, /@example\.com$/);
  assert.equal(json.organization, null);
});

test('assistants pay prints the checkout link again; it pays from "another device"; then pay says it is paid', async () => {
  const bought = await berth(['assistants', 'buy', '--mode', 'byok']);
  assert.equal(bought.status, 0, bought.stderr);
  const id = bought.stdout.trim();
  const pay = await berth(['assistants', 'pay', id]);
  assert.equal(pay.status, 0, pay.stderr);
  const link = pay.stdout.trim();
  assert.match(link, /^http:\/\/.+\/checkout\/[A-Za-z0-9_-]+$/);
  // Activation before paying stops before any secret is asked for, and says how to pay.
  const early = await berth(['assistants', 'activate', id, '--name', 'A', '--model', 'fake-model-1']);
  assert.equal(early.status, 1);
  assert.match(early.stderr, new RegExp(`not paid yet\\. Pay first: berth assistants pay ${id}`));
  assert.doesNotMatch(early.stderr, /bot token|--bot-token/i);
  // The link works from anywhere: no cookie, no key.
  // (PUBLIC_BASE_URL is the default here, so the link's path is sent to this test's server.)
  const paid = await request(`${e.url}${new URL(link).pathname}/complete`, { method: 'POST' });
  await paid.body.dump();
  assert.equal(paid.statusCode, 200);
  const again = await berth(['assistants', 'pay', id]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already paid/);
});

test('another account cannot read a slot’s checkout link', async () => {
  const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const id = bought.json.data.deploymentId;
  const { createApiKey } = await import('../src/index.js');
  const { key } = await createApiKey(
    { users: e.runtime.services.users, secrets: e.runtime.secrets, now: () => new Date() },
    `other-${Date.now()}@example.com`,
  );
  const res = await request(`${e.url}/api/v1/assistants/${id}/checkout`, { headers: { 'x-api-key': key } });
  const body = (await res.body.json()) as { error: { code: string } };
  assert.equal(res.statusCode, 404);
  assert.equal(body.error.code, 'NOT_FOUND');
});

test('hints name the berth command to run, not an API path', async () => {
  // Chat with a slot that is not active yet: the error says how to follow it.
  const bought = await berth(['assistants', 'buy', '--mode', 'byok']);
  const slot = bought.stdout.trim();
  const early = await berth(['chat', slot, 'hello?']);
  assert.equal(early.status, 1, early.stderr);
  // A slot not activated yet never becomes active by being watched: the hint says what moves it.
  assert.match(early.stderr, new RegExp(`then activate it \\(berth assistants activate ${slot}\\)`));
  assert.doesNotMatch(early.stderr, /--watch/);
  assert.doesNotMatch(early.stderr, /\/api\//);

  // A byok spend cap set with `berth assistants limits`; the refusal names that command.
  const bot = '7300000031:AAcliHintsBotTokenForFirstStepsTest_q';
  e.tg.addBot(bot);
  const id = await e.activate(bot);
  await e.waitForStatus(id, ['active']);
  const bad = await berth(['assistants', 'limits', id, '--cap-usd', 'lots']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--cap-usd <amount in USD, 0 or more> or --cap-usd none/);
  const cap = await berth(['assistants', 'limits', id, '--cap-usd', '0']);
  assert.equal(cap.status, 0, cap.stderr);
  assert.equal(cap.stdout, 'Spend cap: $0 per billing period.\n');
  const asked = e.provider.requests.length;
  const refused = await berth(['chat', id, 'one more?']);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, new RegExp(`raise it with: berth assistants limits ${id} --cap-usd <amount>`));
  assert.doesNotMatch(refused.stderr, /\/api\//);
  assert.equal(e.provider.requests.length, asked, 'no model call past the cap');
  const none = await berth(['assistants', 'limits', id, '--cap-usd', 'none', '--json']);
  assert.deepEqual(JSON.parse(none.stdout), { monthlySpendCapUsd: null });
});

// One meter (DESIGN §7.5, decision 0012): a byok bot's Telegram replies go through the control
// plane's model gateway like the chat API's, with the owner's key opened from its seal there. The
// real control plane, its real agent host, FakeTelegram and the fake provider.
import { defaultSettings } from '@berth/contracts/settings';
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, filesUnder } from './helpers/eventually.js';
import { activeBot, startE2E, FAKE_PRICE, type E2E } from './helpers/e2e.js';
import { LocalAgentHost } from '../src/workers/local-agent-host.js';
import { buildWorkerSpec } from '../src/workers/spec.js';

const OWNER_KEY = 'sk-owner-own-provider-key-fedcba9876543210';
const BOT = '7300000091:AAbillingByokTelegramBotToken_abcdefghij';
const REPLY_NANO = 1000 * FAKE_PRICE.prompt * 1000 + 2000 * FAKE_PRICE.completion * 1000;

let e: E2E;
let id: string;

before(async () => {
  e = await startE2E();
  e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
  e.provider.apiKeys.add(OWNER_KEY);
  id = await activeBot(e, BOT, { modelApiKey: OWNER_KEY });
});
after(async () => e?.close());

async function usage() {
  const res = await e.api('GET', `/api/v1/assistants/${id}/usage`);
  assert.equal(res.status, 200, res.text);
  return res.json.data;
}

test("a byok Telegram reply is in /usage with its tokens; the provider got the owner's key", async () => {
  const calls = e.provider.requests.length;
  e.tg.userSends(BOT, 9201, { text: 'hello from telegram' });
  await e.tg.waitForSent((m) => m.chat_id === 9201 && /You said: hello from telegram/.test(m.text));
  const u = await eventually(usage, (x) => x.replies >= 1);
  assert.equal(u.apiMode, 'byok');
  assert.equal(u.replies, 1);
  assert.equal(u.promptTokens, 1000);
  assert.equal(u.completionTokens, 2000);
  assert.equal(u.usedUsd, REPLY_NANO / 1e9);
  const rows = await e.runtime.store.db
    .selectFrom('usage_records')
    .selectAll()
    .where('deployment_id', '=', id)
    .execute();
  assert.deepEqual(
    rows.map((r) => r.source),
    ['gateway'],
  );
  const mine = e.provider.requests.slice(calls);
  assert.equal(mine.length, 1);
  assert.equal(mine[0]!.headers.authorization, `Bearer ${OWNER_KEY}`, "the owner's key, added by the gateway");
});

test("the owner's key is in no worker: not the agent host's environment, arguments, files, nor the spec", async () => {
  const host = e.runtime.services.workers;
  assert.ok(host instanceof LocalAgentHost && host.pid);
  assert.ok(!readFileSync(`/proc/${host.pid}/environ`, 'utf8').includes(OWNER_KEY), 'environment');
  assert.ok(!readFileSync(`/proc/${host.pid}/cmdline`, 'utf8').includes(OWNER_KEY), 'command line');
  for (const file of filesUnder(join(e.dataDir, 'agents')))
    assert.ok(!readFileSync(file).includes(OWNER_KEY), `file ${file}`);
  const d = (await e.runtime.services.deployments.findById(id))!;
  const spec = buildWorkerSpec(e.runtime.services, d, defaultSettings());
  assert.ok(!JSON.stringify(spec).includes(OWNER_KEY), 'spec');
  assert.match(spec.model.apiKey ?? '', /^bgw_/);
  assert.ok(spec.model.baseUrl.endsWith('/gateway/v1'));
});

test("the owner's cap stops the next Telegram reply before the provider is called", async () => {
  // 0.005 USD is booked; a Telegram turn holds ~0.0082 USD (4,096 completion tokens at 2 USD/M).
  const set = await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: 0.006 });
  assert.equal(set.status, 200, set.text);
  const calls = e.provider.requests.length;
  e.tg.userSends(BOT, 9201, { text: 'one more?' });
  const said = await e.tg.waitForSent((m) => m.chat_id === 9201 && !/You said/.test(m.text));
  assert.match(said.text, /allowance/);
  assert.doesNotMatch(said.text, /CREDITS_EXHAUSTED|429/);
  assert.equal(e.provider.requests.length, calls, 'no provider call');
  const u = await usage();
  assert.equal(u.replies, 1);
  assert.ok(u.usedUsd <= 0.006);
  // Lifting the cap lets the bot answer again at once.
  assert.equal((await e.api('PUT', `/api/v1/assistants/${id}/limits`, { monthlySpendCapUsd: null })).status, 200);
  e.tg.userSends(BOT, 9202, { text: 'uncapped' });
  await e.tg.waitForSent((m) => m.chat_id === 9202 && /You said: uncapped/.test(m.text));
  assert.equal((await eventually(usage, (x) => x.replies >= 2)).replies, 2);
});

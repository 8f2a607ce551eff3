// berth assistants reminders list|clear (issue 57 R5): the `berth` CLI (in-process, helpers/cli.ts)
// against a real control plane, its agent host and the loopback fakes; the reminders are asked for
// through the fake model's tool call (SQLite, or PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runBerthWithKey } from './helpers/cli.js';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';

const BOT = '7200000032:AAcliRemindersFakeBotTokenForCliTests_x';
let e: E2E;
let id: string;
const configHome = tempDirForFile('berth-cli-reminders-');

const berth = (args: string[]) => runBerthWithKey(e, configHome, args);

before(async () => {
  ({ e, id } = await startWithActiveBot(BOT));
  const at = new Date(Date.now() + 3_600_000).toISOString();
  e.provider.queue.push({
    toolCalls: [
      { name: 'schedule_message', arguments: { text: 'call the plumber', at } },
      { name: 'schedule_message', arguments: { text: 'weekly digest', cron: '0 9 * * 1', task: true } },
    ],
  });
  e.provider.queue.push({ content: 'Both set.' });
  e.tg.userSends(BOT, 9601, { text: 'remind me' });
  await e.tg.waitForSent((m) => m.chat_id === 9601 && m.text === 'Both set.', 15_000);
});
after(async () => {
  await e.close();
});

test('reminders list shows what end users asked for; clear cancels one, then the rest', async () => {
  const table = await berth(['assistants', 'reminders', 'list', id]);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /call the plumber/);
  assert.match(table.stdout, /tg:9601/);
  assert.match(table.stdout, /task \(0 9 \* \* 1\)/);

  const listed = await berth(['assistants', 'reminders', 'list', id, '--json']);
  const reminders = JSON.parse(listed.stdout) as Array<{ id: string; text: string }>;
  assert.equal(reminders.length, 2);
  const plumber = reminders.find((r) => r.text === 'call the plumber')!;

  const one = await berth(['assistants', 'reminders', 'clear', id, '--reminder', plumber.id]);
  assert.equal(one.status, 0, one.stderr);
  assert.equal(one.stdout, `Cancelled reminder ${plumber.id}.\n`);
  const again = await berth(['assistants', 'reminders', 'clear', id, '--reminder', plumber.id]);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /No pending reminder/);

  const rest = await berth(['assistants', 'reminders', 'clear', id, '--json']);
  assert.deepEqual(JSON.parse(rest.stdout), { success: true, removed: 1 });
  assert.equal((await berth(['assistants', 'reminders', 'list', id])).stdout, 'No pending reminders.\n');

  const usage = await berth(['assistants', 'reminders', 'list']);
  assert.equal(usage.status, 2, usage.stderr);
  assert.match(usage.stderr, /berth assistants reminders list <id>/);
});

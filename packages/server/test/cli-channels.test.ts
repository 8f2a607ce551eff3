// berth assistants channels list|set|remove (DESIGN §9.1): the real `berth` binary in a subprocess
// against a real control plane; the secrets go in on stdin and never come out (SQLite, or
// PostgreSQL with BERTH_TEST_DATABASE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runBerthWithKey } from './helpers/cli.js';
import { startWithActiveBot, type E2E } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';

const BOT = '7200000058:AAcliChannelsFakeBotTokenForCliTests_xy';
const TOKEN = 'EAAGcliChannelsAccessTokenForTests0123456789';
const SECRET = '0123456789abcdef0123456789abcdef';
let e: E2E;
let id: string;
const configHome = tempDirForFile('berth-cli-channels-');

const berth = (args: string[], input?: string) => runBerthWithKey(e, configHome, args, input);

before(async () => ({ e, id } = await startWithActiveBot(BOT)));
after(async () => {
  await e.close();
});

test('channels set whatsapp takes the secrets on stdin, prints the webhook URL and verify token, never a secret', async () => {
  const set = await berth(
    [
      'assistants',
      'channels',
      'set',
      id,
      'whatsapp',
      '--phone-number-id',
      '106540352242922',
      '--access-token',
      '-',
      '--app-secret',
      '-',
    ],
    `${TOKEN}\n${SECRET}\n`,
  );
  assert.equal(set.status, 0, set.stderr);
  assert.match(set.stdout, /webhook URL: +http:\/\/[^ ]+\/hooks\/whatsapp\/[0-9a-f-]{36}\n/);
  assert.match(set.stdout, /verify token: +[0-9a-f]{40}\n/);
  for (const out of [set.stdout, set.stderr]) assert.ok(!out.includes(TOKEN) && !out.includes(SECRET));

  const listed = await berth(['assistants', 'channels', 'list', id, '--json']);
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((c: { type: string }) => c.type),
    ['telegram', 'whatsapp'],
  );
  const table = await berth(['assistants', 'channels', 'list', id]);
  assert.match(table.stdout, /whatsapp +connecting/);

  const removed = await berth(['assistants', 'channels', 'remove', id, 'whatsapp']);
  assert.equal(removed.status, 0, removed.stderr);
  const again = await berth(['assistants', 'channels', 'remove', id, 'whatsapp']);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /no whatsapp channel/);
});

test('channels set without a phone number id or with a wrong type: a usage error, nothing sent', async () => {
  const none = await berth(['assistants', 'channels', 'set', id, 'whatsapp']);
  assert.equal(none.status, 2, none.stderr);
  assert.match(none.stderr, /--phone-number-id is required/);
  const wrong = await berth(['assistants', 'channels', 'set', id, 'sms', '--phone-number-id', '1']);
  assert.equal(wrong.status, 2, wrong.stderr);
  assert.match(wrong.stderr, /usage: berth assistants channels/);
});

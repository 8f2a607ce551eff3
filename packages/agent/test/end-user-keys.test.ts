// An end user is `(channel, user id)` (DESIGN §9.1, decision 0033): the same id on two channels is
// two people, with their own memory, sessions, daily limits and pairing codes; and the keys
// Telegram's users were stored under before the channel seam still name them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AccessStore, accessUser } from '../src/storage/access.js';
import { SessionStore } from '../src/storage/sessions.js';
import { userData } from '../src/storage/user-data.js';
import { channelSession, telegramSession, type InboundMessage } from '../src/core/inbound.js';
import { endUserOf } from '../src/tools/end-user.js';

const NOW = Date.UTC(2026, 11, 6, 9, 0, 0);
const from = (channel: string | undefined, type: InboundMessage['chat']['type']): InboundMessage => ({
  ...(channel ? { channel } : {}),
  chat: { id: '42', type },
  sender: { id: '42' },
  text: 'hi',
  mentioned: true,
});

test("user 42 on Telegram, on WhatsApp and on the API are three end users; Telegram's keys are the old ones", () => {
  assert.deepEqual(endUserOf('a1', from(undefined, 'private')), { agent: 'a1', user: 'tg:42', chat: 'telegram:42' });
  assert.deepEqual(endUserOf('a1', from('telegram', 'private')), { agent: 'a1', user: 'tg:42', chat: 'telegram:42' });
  assert.deepEqual(endUserOf('a1', from('whatsapp', 'private')), {
    agent: 'a1',
    user: 'whatsapp:42',
    chat: 'whatsapp:42',
  });
  assert.deepEqual(endUserOf('a1', from(undefined, 'api')), { agent: 'a1', user: 'api:42' });
  assert.equal(channelSession('telegram', 42, 3), telegramSession(42, 3));
  assert.equal(channelSession('telegram', 42, 3), 'telegram:42:3', 'stored Telegram sessions keep their key');

  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-keys-')));
  try {
    const memory = userData(store).memory;
    memory.remember('a1', 'tg:42', 'likes tea');
    assert.deepEqual(
      memory.facts('a1', endUserOf('a1', from('telegram', 'private'))!.user).map((f) => f.fact),
      ['likes tea'],
      "a Telegram user's stored memory is found under the seam's key",
    );
    assert.deepEqual(memory.facts('a1', endUserOf('a1', from('whatsapp', 'private'))!.user), [], 'not by WhatsApp 42');
  } finally {
    store.close();
  }
});

test("daily limits and pairing codes: Telegram's stored rows still count, another channel's user is counted apart", () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-keys-'));
  const access = new AccessStore(dir);
  // A row as the agent wrote it before the channel seam: Telegram user 42's first reply today.
  const day = new Date(NOW).toISOString().slice(0, 10);
  const raw = new Database(join(dir, 'agent-access.sqlite'));
  raw.prepare('INSERT INTO daily_replies (agent, user_id, day, count) VALUES (?, ?, ?, 1)').run('a1', 42, day);
  raw.close();

  const tg = accessUser('telegram', '42');
  const wa = accessUser('whatsapp', '42');
  assert.equal(tg, 42);
  assert.equal(wa, 'whatsapp:42');
  assert.equal(access.countReply('a1', tg, 2, NOW), 'ok', 'the second reply of the day');
  assert.equal(access.countReply('a1', tg, 2, NOW), 'first_over', 'the stored count went on');
  assert.equal(access.countReply('a1', wa, 2, NOW), 'ok', 'WhatsApp 42 has a count of their own');
  assert.equal(access.countReply('a1', wa, 2, NOW), 'ok');

  const tgCode = access.pairingFor('a1', tg, 'Ann', NOW);
  const waCode = access.pairingFor('a1', wa, 'Ann on WhatsApp', NOW);
  assert.notEqual(tgCode, waCode, 'a code each');
  // The control plane approves codes into access.telegramUserIds: it is shown Telegram's only.
  assert.deepEqual(
    access.pending('a1', NOW).map((p) => [p.code, p.telegramUserId]),
    [[tgCode, 42]],
  );
  assert.equal(access.find('a1', waCode, NOW), undefined);
});

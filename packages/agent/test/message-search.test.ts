// Past-conversation search (issue 64): scoped to one user inside the full-text index, ranked by the
// query words a message holds, then by how recent it is; databases of earlier versions keep their
// index searchable after the upgrade.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { MessageSearch } from '../src/storage/message-search.js';
import { SessionStore } from '../src/storage/sessions.js';

const say = (store: SessionStore, user: string, content: string) =>
  store.append('a1', `telegram:${user}:0`, [{ role: 'user', content }], 1e9, user);

test('the message holding more of the words comes first, then the newest', () => {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-search-')));
  try {
    say(store, 'tg:1', 'the invoice for the boat repair');
    say(store, 'tg:1', 'an invoice arrived');
    say(store, 'tg:1', 'another invoice, later');
    say(store, 'tg:2', 'boat repair invoice of somebody else');
    const found = new MessageSearch(store.db).search('a1', 'tg:1', 'boat invoice');
    assert.deepEqual(
      found.map((r) => r.snippet.replace(/[«»]/g, '')),
      ['the invoice for the boat repair', 'another invoice, later', 'an invoice arrived'],
    );
  } finally {
    store.close();
  }
});

test('an index written before the upgrade is still searched, per user', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-search-v3-'));
  // The schema of version 3 (what a host upgraded from holds), written by hand.
  const old = new Database(join(dir, 'agent-sessions.sqlite'));
  old.exec(`
    CREATE VIRTUAL TABLE message_search USING fts5 (
      content, agent UNINDEXED, user UNINDEXED, session UNINDEXED, role UNINDEXED, at UNINDEXED,
      tokenize = 'unicode61 remove_diacritics 2');
    INSERT INTO message_search VALUES ('my café is on Rue Oberkampf', 'a1', 'tg:1', 'telegram:1:0', 'user', '2026-01-01T00:00:00.000Z');
    INSERT INTO message_search VALUES ('the cafe of tg:2', 'a1', 'tg:2', 'telegram:2:0', 'user', '2026-01-01T00:00:00.000Z');
    CREATE TABLE memory (id INTEGER PRIMARY KEY AUTOINCREMENT, agent TEXT NOT NULL, user TEXT NOT NULL, fact TEXT NOT NULL, at TEXT NOT NULL, archived_at TEXT);
    CREATE TABLE schedules (id TEXT PRIMARY KEY, agent TEXT NOT NULL, user TEXT NOT NULL, chat TEXT NOT NULL, text TEXT NOT NULL, task INTEGER NOT NULL, at TEXT, cron TEXT, timezone TEXT, next_at INTEGER NOT NULL, status TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL);
    CREATE TABLE summaries (agent TEXT NOT NULL, session TEXT NOT NULL, content TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (agent, session));
    CREATE TABLE user_data_imports (agent TEXT NOT NULL, id TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (agent, id));
    PRAGMA user_version = 3;
  `);
  old.close();
  const store = new SessionStore(dir);
  try {
    const search = new MessageSearch(store.db);
    assert.deepEqual(
      search.search('a1', 'tg:1', 'cafe').map((r) => r.snippet),
      ['my «café» is on Rue Oberkampf'],
    );
    say(store, 'tg:1', 'a new cafe');
    assert.equal(search.search('a1', 'tg:1', 'cafe').length, 2);
  } finally {
    store.close();
  }
});

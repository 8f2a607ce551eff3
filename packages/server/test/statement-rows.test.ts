// The direct lane's reads (statement-cache.ts) name each row's columns with one compiled row maker per
// statement: its rows must be the objects better-sqlite3 itself makes, whatever the column names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { cachingStatements } from '../src/platform/store/statement-cache.js';

test('a direct read answers the rows better-sqlite3 makes: odd names quoted, a repeated name keeps its last value', () => {
  const sqlite = new Database(':memory:');
  const db = cachingStatements(sqlite);
  try {
    sqlite.exec(`create table a (id text, "we""ird name" text, "x: v[0]})//" integer);
      create table b (id text, a_id text, note text);
      insert into a values ('a1', 'q"uote', 1), ('a2', null, 2);
      insert into b values ('b1', 'a1', 'first'), ('b2', 'a2', null);`);
    const queries = [
      'select * from a order by id',
      // Two columns named id: the last one wins, at the first one's place.
      'select a.id, b.* from a join b on b.a_id = a.id order by a.id',
      'select count(*) as n, 1 as "0", \'__x\' as "constructor" from a',
    ];
    for (const q of queries) {
      const direct = db.direct.statement(q, []);
      assert.ok(direct, 'ran on the direct lane');
      const want = sqlite.prepare(q).all();
      assert.deepEqual(direct.rows, want, q);
      for (const [i, row] of direct.rows.entries())
        assert.deepEqual(Object.keys(row as object), Object.keys(want[i] as object), `${q}: key order`);
    }
  } finally {
    db.close();
  }
});

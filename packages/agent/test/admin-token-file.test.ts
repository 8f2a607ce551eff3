// In Kubernetes the agent host reads its admin token from a mounted Secret (ADMIN_TOKEN_FILE), so
// the token is in no process environment that tenants' tools could read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadHostConfig } from '../src/config/env.js';

test('ADMIN_TOKEN_FILE: the token is read from the file; a missing or empty file is a clear error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-admin-token-'));
  const file = join(dir, 'admin-token');
  writeFileSync(file, 'a-host-admin-token-from-a-mounted-secret\n');
  const c = loadHostConfig({ ADMIN_TOKEN_FILE: file, DATA_DIR: dir });
  assert.equal(c.adminToken, 'a-host-admin-token-from-a-mounted-secret');
  assert.throws(
    () => loadHostConfig({ ADMIN_TOKEN_FILE: join(dir, 'nope'), DATA_DIR: dir }),
    /ADMIN_TOKEN_FILE.*ENOENT/,
  );
  writeFileSync(file, '\n');
  assert.throws(() => loadHostConfig({ ADMIN_TOKEN_FILE: file, DATA_DIR: dir }), /empty/);
});

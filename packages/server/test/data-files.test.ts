// What the control plane keeps on disk is private: DATA_DIR 0700, the database and its WAL 0600,
// whatever the process umask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness } from './helpers/harness.js';

test('DATA_DIR is 0700 and the files the control plane writes are 0600', async () => {
  const old = process.umask(0o022);
  const root = mkdtempSync(join(tmpdir(), 'berth-perms-'));
  const dataDir = join(root, 'nested', 'data');
  const h = await startHarness({ DATA_DIR: dataDir });
  try {
    await h.key();
    const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
    assert.equal(mode(dataDir), '700');
    const files = ['secrets.key', 'berth.sqlite', 'berth.sqlite-wal', 'berth.sqlite-shm'].map((f) => join(dataDir, f));
    for (const f of files.filter(existsSync)) assert.equal(mode(f), '600', f);
    if (h.runtime.store.dialect === 'sqlite') assert.ok(existsSync(files[1]!));
  } finally {
    process.umask(old);
    await h.close();
    rmSync(root, { recursive: true, force: true });
  }
});

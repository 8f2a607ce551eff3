// Each test file's own temporary folder (scripts/file-tmpdir.mjs): what the file's processes make
// there goes when the file ends, and tsx's shared transform cache does not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileTmpDir, removeTmpDir } from '../../../scripts/file-tmpdir.mjs';

const MODULE = pathToFileURL(resolve(import.meta.dirname, '../../../scripts/file-tmpdir.mjs')).href;

test("a file's folders made through os.tmpdir() are removed with its folder; the tsx cache it links to stays", () => {
  const dir = fileTmpDir();
  assert.equal(statSync(dir).mode & 0o7777, 0o1777, 'open to all, sticky, as /tmp is');
  // A process of the file, as the runner starts it: TMPDIR is the file's folder.
  const made = spawnSync(
    process.execPath,
    [
      '-e',
      "const {mkdtempSync}=require('node:fs');const {tmpdir}=require('node:os');const {join}=require('node:path');process.stdout.write(mkdtempSync(join(tmpdir(),'berth-left-')))",
    ],
    { env: { ...process.env, TMPDIR: dir }, encoding: 'utf8' },
  ).stdout;
  assert.ok(made.startsWith(`${dir}/berth-left-`), made);
  writeFileSync(join(made, 'db.sqlite'), 'x');
  const link = join(dir, `tsx-${process.getuid!()}`);
  assert.ok(lstatSync(link).isSymbolicLink());
  const cacheEntry = join(link, `berth-file-tmpdir-test-${process.pid}`);
  writeFileSync(cacheEntry, 'cached');
  removeTmpDir(dir);
  assert.equal(existsSync(dir), false, "the file's folder and what its processes left are gone");
  assert.equal(existsSync(made), false);
  const shared = join(resolve(dir, '..'), `tsx-${process.getuid!()}`, `berth-file-tmpdir-test-${process.pid}`);
  assert.equal(existsSync(shared), true, 'the shared tsx cache is kept');
  rmSync(shared);
});

test('a run that stops early removes the folders of the files still running', () => {
  const base = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'berth-stopped-run-'));
  const out = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { fileTmpDir } from '${MODULE}'; console.log(fileTmpDir()); process.exit(3);`,
    ],
    { env: { ...process.env, TMPDIR: base }, encoding: 'utf8' },
  );
  assert.equal(out.status, 3);
  const dir = out.stdout.trim();
  assert.ok(dir.startsWith(`${base}/berth-file-`), dir);
  assert.equal(existsSync(dir), false);
  rmSync(base, { recursive: true });
});

// A temporary directory a test file keeps for all its tests (a CLI's config home, a journal's
// directory), removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';

/** A new directory under the system's temporary one, named from `prefix`; removed in the file's `after`. */
export function tempDirForFile(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A temporary folder of its own for each test file (its TMPDIR), removed when the file ends. The
// tests make temporary folders in some 200 places and most leave them: before this, a run of the
// suite left about 2,500 folders and 100 MB in /tmp, run after run.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders of the files running now: removed with the run if it stops early. */
const live = new Set();
process.on('exit', () => {
  for (const dir of live) remove(dir);
});

export function fileTmpDir() {
  const dir = mkdtempSync(join(tmpdir(), 'berth-file-'));
  // Open to all as /tmp is: a file's processes that run as another user (the agent host's runAsUid)
  // make their folders here too.
  chmodSync(dir, 0o1777);
  // tsx keeps its transform cache in the temporary folder (tsx-<uid>): linked to the shared one, or
  // every file would transform the code base again from nothing.
  const uid = process.getuid?.();
  if (uid !== undefined) {
    const cache = join(tmpdir(), `tsx-${uid}`);
    mkdirSync(cache, { recursive: true, mode: 0o700 });
    symlinkSync(cache, join(dir, `tsx-${uid}`));
  }
  live.add(dir);
  return dir;
}

/** Removes a file's folder once its processes are gone (the link goes, not the cache it points to). */
export function removeTmpDir(dir) {
  live.delete(dir);
  remove(dir);
}

function remove(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch (err) {
    process.stderr.write(`could not remove the test file's temporary folder ${dir}: ${err.message}\n`);
  }
}

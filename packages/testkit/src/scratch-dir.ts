// A benchmark's data folder: made in the temporary folder and removed when the process exits, so a
// run does not leave its database behind (a bench:gateway run left 75 MB, every run).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // 'exit' runs on process.exit() too, which is how the benches' child processes end on SIGINT. A
  // process killed by a signal it does not handle runs no 'exit' listener and leaves the folder.
  process.once('exit', () => {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // A host still writing in it as the bench ends: what is left is only a folder in /tmp.
    }
  });
  return dir;
}

// A benchmark's data folder (testkit's scratchDir) goes with its process when it exits, as the
// benches' control planes do on SIGINT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';

const CHILD = `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from '@berth/testkit/scratch-dir';
const dir = scratchDir('berth-scratch-test-');
writeFileSync(join(dir, 'berth.sqlite'), 'rows');
process.on('SIGINT', () => process.exit(0));
console.log(dir);
setInterval(() => {}, 1000);
`;

test("a bench's data folder, with what was written in it, is removed when its process exits on SIGINT", async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: import.meta.dirname,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [dir] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  assert.ok(existsSync(`${dir}/berth.sqlite`));
  child.kill('SIGINT');
  assert.deepEqual(await once(child, 'exit'), [0, null]);
  assert.equal(existsSync(dir), false);
});

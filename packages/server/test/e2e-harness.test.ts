// The end-to-end harness (helpers/e2e.ts) stops what it started when its start fails: a fake
// Telegram and model provider left listening kept the test file's process alive after the
// failure, and the suite waited on it for good (CI, an agent host that could not start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const HARNESS = fileURLToPath(new URL('./helpers/e2e.ts', import.meta.url));

test('a harness whose start fails leaves nothing running: its process exits by itself', async () => {
  const child = spawn(
    process.execPath,
    [
      '--conditions=berth-source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { startE2E } = await import(${JSON.stringify(HARNESS)});
       try { await startE2E({ WORKER_BACKEND: 'nope' }); console.log('started'); }
       catch (err) { console.log('failed:', err.message); }`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  assert.match(out, /failed: WORKER_BACKEND: expected one of local, kubernetes/);
  assert.equal(signal, null, 'it was still running after 30 s');
  assert.equal(code, 0);
});

// The end-to-end harness (helpers/e2e.ts) stops what it started when its start fails: a fake
// Telegram and model provider left listening kept the test file's process alive after the
// failure, and the suite waited on it for good (CI, an agent host that could not start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const HARNESS = fileURLToPath(new URL('./helpers/e2e.ts', import.meta.url));

/** Runs `body` (with startE2E in scope) in a process of its own: what it printed, and whether it exited by itself. */
async function inProcess(body: string) {
  const child = spawn(
    process.execPath,
    [
      '--conditions=berth-source',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { startE2E } = await import(${JSON.stringify(HARNESS)});\n${body}`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: process.env },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  // Long enough for tsx to load the whole server on a busy machine, and for the fakes to close.
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code, signal] = await once(child, 'exit');
  clearTimeout(timer);
  return { out, code, signal };
}

test('a harness whose configuration is refused leaves nothing running: its process exits by itself', async () => {
  const r = await inProcess(`
    try { await startE2E({ WORKER_BACKEND: 'nope' }); console.log('started'); }
    catch (err) { console.log('failed:', err.message); }`);
  assert.match(r.out, /failed: WORKER_BACKEND: expected one of local, kubernetes/);
  assert.equal(r.signal, null, `it was still running after 60 s (said: ${r.out})`);
  assert.equal(r.code, 0);
});

test('a harness that cannot listen (its port taken) closes its control plane too', async () => {
  const r = await inProcess(`
    const { createServer } = await import('node:net');
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((ok) => taken.once('listening', ok));
    try { await startE2E({ PORT: String(taken.address().port) }); console.log('started'); }
    catch (err) { console.log('failed:', err.code); }
    taken.close();`);
  assert.match(r.out, /failed: EADDRINUSE/);
  assert.equal(r.signal, null, `it was still running after 60 s (said: ${r.out})`);
  assert.equal(r.code, 0);
});

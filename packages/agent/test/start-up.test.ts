// What a fresh agent host loads: the schema library and validators come with the first call that
// needs them, so an empty host stays small (docs/decisions/0015, "Third pass").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';

const AGENT_BIN = resolve(import.meta.dirname, '../bin/berth-agent.js');
const ADMIN = 'admin-token-for-start-up-test-0123456789';

/** Preloads that write every file the host resolves, by require (main thread) or import (hooks). */
function moduleLog(dir: string) {
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, r.url + '\\n');
  return r;
}`,
  );
  const preload = join(dir, 'preload.mjs');
  writeFileSync(
    preload,
    `import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(pathToFileURL(hooks).href)});
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  appendFileSync(${JSON.stringify(log)}, file + '\\n');
  return file;
};`,
  );
  return { preload, loaded: () => readFileSync(log, 'utf8') };
}

test('an empty host loads neither TypeBox nor Ajv; the first agent brings TypeBox', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-start-up-'));
  const { preload, loaded } = moduleLog(dir);
  const child = spawn(process.execPath, ['--import', preload, AGENT_BIN, 'host'], {
    env: { ...process.env, PORT: '0', ADMIN_TOKEN: ADMIN, DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await new Promise<string>((ok, fail) => {
      child.once('exit', (code) => fail(new Error(`the host exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^berth-agent host listening on (\S+)$/.exec(line);
        if (m) ok(m[1]!);
      });
    });
    const atStart = loaded();
    assert.match(atStart, /\/node_modules\/fastify\//, 'the log sees what the host loads');
    assert.doesNotMatch(atStart, /\/node_modules\/typebox\//);
    assert.doesNotMatch(atStart, /\/node_modules\/ajv\//);
    const put = await request(`${url}/agents/alpha`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        gatewayToken: 'gateway-alpha-0123456789',
        model: { provider: 'fakeai', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm', apiKey: 'sk-unused' },
      }),
    });
    assert.equal(put.statusCode, 200);
    await put.body.dump();
    assert.match(loaded(), /\/node_modules\/typebox\//);
    assert.doesNotMatch(loaded(), /\/node_modules\/ajv\//);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r(null)));
    rmSync(dir, { recursive: true, force: true });
  }
});

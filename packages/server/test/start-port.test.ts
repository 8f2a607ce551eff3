// `PORT=0 npm start`: the control plane listens on a free port, and what it tells people names that
// port: the banner's links, and the links it makes (OpenAPI's server, checkout). They used to say
// port 0, which nothing answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { startControlPlane, stopControlPlane } from './helpers/control-plane-process.js';

async function onPortZero(env: Record<string, string>, check: (url: string, banner: string) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'berth-port-zero-'));
  try {
    // PUBLIC_BASE_URL cleared unless given: one set in the developer's shell would be kept.
    const cp = await startControlPlane({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: '',
      ...env,
    });
    try {
      // The banner is written right after the ready line.
      const until = Date.now() + 10_000;
      while (!cp.stderr().includes('Berth is running') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      await check(cp.url, /Berth is running: .*/.exec(cp.stderr())?.[0] ?? '');
    } finally {
      await stopControlPlane(cp);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function openApiServer(url: string) {
  const doc = (await (await request(`${url}/api/openapi`)).body.json()) as { servers: Array<{ url: string }> };
  return doc.servers[0]?.url;
}

test('PORT=0: the banner and the links the control plane makes name the port it listens on', {
  timeout: 120_000,
}, async () => {
  await onPortZero({}, async (url, banner) => {
    const port = new URL(url).port;
    assert.notEqual(port, '0');
    assert.match(banner, new RegExp(`open http://127\\.0\\.0\\.1:${port}/ \\(dashboard\\)`));
    assert.doesNotMatch(banner, /:0\//);
    assert.equal(await openApiServer(url), `http://127.0.0.1:${port}`);
  });
});

test('PORT=0 with PUBLIC_BASE_URL set: the links keep the address the operator gave', {
  timeout: 120_000,
}, async () => {
  await onPortZero({ PUBLIC_BASE_URL: 'https://berth.example.com' }, async (url, banner) => {
    assert.notEqual(new URL(url).port, '0');
    assert.match(banner, /open https:\/\/berth\.example\.com\/ \(dashboard\)/);
    assert.equal(await openApiServer(url), 'https://berth.example.com');
  });
});

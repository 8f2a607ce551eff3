// The control plane's health polls and host listings are debug detail: at info they would bury a
// host's log. Requests that do something still log at info.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { GATEWAY, startServe } from './helpers/serve.js';

test('health polls log at debug; a chat request logs at info', async () => {
  const s = await startServe();
  try {
    for (let i = 0; i < 3; i++) await (await request(`${s.url}/health`)).body.dump();
    await (
      await request(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${GATEWAY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] }),
      })
    ).body.dump();
    const lines = s.logs.map((l) => JSON.parse(l) as { level: number; msg: string; req?: { url: string } });
    const completed = lines.filter((l) => l.msg === 'request completed' || l.msg === 'incoming request');
    const probes = lines.filter((l) => l.req?.url === '/health');
    assert.equal(probes.length, 3, 'each probe is still logged, at debug');
    assert.ok(
      probes.every((l) => l.level === 20),
      'probes at debug',
    );
    const info = completed.filter((l) => l.level === 30);
    assert.ok(info.length >= 2, 'the chat request is logged at info');
    assert.ok(
      info.every((l) => l.req?.url !== '/health'),
      'no probe at info',
    );
  } finally {
    await s.close();
  }
});

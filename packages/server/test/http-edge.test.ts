// What reaches the server before any route runs: bad percent escapes, over-long path segments,
// bytes that are not HTTP, oversized headers, and bodies that never finish. Each is answered in
// the error envelope (never Fastify's or Node's own body), and a slow body cannot hold a
// connection forever while a slow streamed answer is not cut.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { request } from 'undici';
import { close, listen } from '@berth/testkit';
import { startHarness, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { rawRequest } from './helpers/raw-http.js';

const TIMEOUT_MS = 600;
let h: Harness;
let port: number;
let key: string;
before(async () => {
  h = await startHarness({}, { requestTimeoutMs: TIMEOUT_MS });
  await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.runtime.app.server.address() as AddressInfo).port;
  key = await h.key();
});
after(() => h.close());

/** Writes raw bytes, optionally more later, and resolves with everything the server sent back. */
function rawExchange(chunks: Array<string | { waitMs: number }>) {
  return new Promise<{ status: number; body: any; ms: number }>((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', async () => {
      for (const c of chunks) {
        if (typeof c === 'string') socket.write(c);
        else await new Promise((r) => setTimeout(r, c.waitMs));
        if (socket.destroyed) break;
      }
      // A socket the server still holds open well after the last write is the failure, not a hang.
      setTimeout(() => socket.destroy(), TIMEOUT_MS * 4).unref();
    });
    const got: Buffer[] = [];
    socket.on('data', (c) => got.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(got).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      try {
        resolve({ status, body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)), ms: Date.now() - started });
      } catch {
        reject(new Error(`not an envelope: ${JSON.stringify(text.slice(0, 300))}`));
      }
    });
  });
}

test('bad percent escapes in the path are a 400 in the envelope, on every route', async () => {
  for (const target of [
    '/api/v1/assistants/%zz/status',
    '/api/v1/assistants/%E0%A4%A',
    '/api/v1/assistants/abc%',
    '/checkout/%ff%fe',
    '/nope%',
  ]) {
    const res = await rawRequest(port, 'GET', target, { 'x-api-key': key });
    assert.equal(res.status, 400, target);
    assert.equal(res.body.error.code, 'INVALID_REQUEST', target);
    assert.match(res.body.error.message, /percent-encoding/);
  }
});

test('an id longer than any deployment id is a 404 NOT_FOUND, like any other id that names nothing', async () => {
  const res = await rawRequest(port, 'GET', `/api/v1/assistants/${'a'.repeat(150)}/status`, { 'x-api-key': key });
  assert.equal(res.status, 404);
  assert.deepEqual(res.body, { error: { code: 'NOT_FOUND', message: 'Deployment not found.' } });
});

test('bytes that are not HTTP, and oversized headers, are a 400 in the envelope', async () => {
  const garbage = await rawExchange(['GARBAGE\r\n\r\n']);
  assert.equal(garbage.status, 400);
  assert.equal(garbage.body.error.code, 'INVALID_REQUEST');
  const badHeader = await rawExchange(['GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n']);
  assert.equal(badHeader.body.error.code, 'INVALID_REQUEST');
  const huge = await rawExchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`]);
  assert.equal(huge.body.error.code, 'INVALID_REQUEST');
  assert.match(huge.body.error.message, /headers are too large/);
});

test('a body that never finishes is cut after the request timeout, with an envelope', async () => {
  const head =
    'POST /api/v1/assistants/purchase HTTP/1.1\r\nHost: berth.test\r\nContent-Type: application/json\r\n' +
    `x-api-key: ${key}\r\nContent-Length: 100\r\n\r\n{"apiMode":`;
  const res = await rawExchange([head, { waitMs: TIMEOUT_MS * 10 }]);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'INVALID_REQUEST');
  assert.match(res.body.error.message, /did not arrive within/);
  assert.ok(res.ms < TIMEOUT_MS * 8, `cut after ${res.ms} ms`);
});

test('a streamed answer that takes longer than the request timeout is not cut', async () => {
  // A worker that streams for 4 × the request timeout.
  const worker = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const t = setInterval(() => {
      res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `${n} ` } }] })}\n\n`);
      if (++n === 8) {
        clearInterval(t);
        res.end('data: [DONE]\n\n');
      }
    }, TIMEOUT_MS / 2);
  });
  h.workers.urlBase = await listen(worker);
  try {
    const id = await activeDeployment(h, key);
    const res = await request(`http://127.0.0.1:${port}/api/v1/assistants/${id}/chat/completions`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const text = await res.body.text();
    assert.equal(res.statusCode, 200);
    assert.match(text, /"7 "[\s\S]*\[DONE\]/, 'every chunk arrived');
  } finally {
    await close(worker);
  }
});

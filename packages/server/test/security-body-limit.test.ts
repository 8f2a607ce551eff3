// Issue 28: a body over the limit is a 413 PAYLOAD_TOO_LARGE in the envelope, and the sender reads
// that answer: the server reads and drops the rest of the body before closing, so the sender's
// writes never meet EPIPE or ECONNRESET. Raw sockets, as a sender that streams its body would.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { startHarness, type Harness } from './helpers/harness.js';

let h: Harness;
let port: number;
let key: string;
before(async () => {
  h = await startHarness();
  await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.runtime.app.server.address() as AddressInfo).port;
  key = await h.key();
});
after(() => h?.close());

const TEN_MB = 10 * 1024 * 1024;

/** Streams a 10 MB body with backpressure; resolves with what came back and any socket error. */
function sendBig(opts: { chunked: boolean; close: boolean }) {
  return new Promise<{ text: string; error?: string }>((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const socket = connect(port, '127.0.0.1', async () => {
      socket.write(
        `POST /api/v1/assistants/purchase HTTP/1.1\r\nHost: berth.test\r\nX-API-Key: ${key}\r\n` +
          `Content-Type: application/json\r\n${opts.close ? 'Connection: close\r\n' : ''}` +
          `${opts.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${TEN_MB}`}\r\n\r\n`,
      );
      const piece = Buffer.alloc(64 * 1024, 'a');
      for (let sent = 0; sent < TEN_MB && !socket.destroyed; sent += piece.length) {
        const framed = opts.chunked
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
          : piece;
        if (!socket.write(framed)) await new Promise((r) => socket.once('drain', r).once('close', r));
      }
      if (!socket.destroyed) socket.end(opts.chunked ? '0\r\n\r\n' : '');
    });
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code;
    });
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), error }));
    // A server that never closes is a failure too, not a hang.
    setTimeout(() => socket.destroy(), 60_000).unref();
  });
}

for (const chunked of [false, true])
  for (const close of [false, true])
    test(`a 10 MB body (${chunked ? 'chunked' : 'Content-Length'}${close ? ', Connection: close' : ''}) gets 413 PAYLOAD_TOO_LARGE and the sender no EPIPE/ECONNRESET`, async () => {
      for (let i = 0; i < 3; i++) {
        const r = await sendBig({ chunked, close });
        assert.equal(r.error, undefined, `socket error ${r.error}; got: ${r.text.slice(0, 200)}`);
        assert.match(r.text, /^HTTP\/1\.1 413 /);
        const body = JSON.parse(r.text.slice(r.text.indexOf('\r\n\r\n') + 4));
        assert.equal(body.error.code, 'PAYLOAD_TOO_LARGE');
        assert.match(body.error.message, /larger than 1048576 bytes/);
      }
      assert.equal((await h.runtime.store.db.selectFrom('deployments').selectAll().execute()).length, 0);
    });

test('a body of 1 MiB and a bit, sent at once, is a 413 too (not a 400)', async () => {
  const res = await h.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: `{"apiMode":"${'a'.repeat(1_100_000)}"}`,
  });
  assert.equal(res.statusCode, 413, res.body);
  assert.equal(res.json().error.code, 'PAYLOAD_TOO_LARGE');
});

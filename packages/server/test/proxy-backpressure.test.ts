// The chat proxy's side of issue 8 item 12: a client that stops reading and then hangs up while the
// proxy waits on backpressure must not leave the handler behind. A leaked handler holds its chat
// slot for good, so the assistant's slot count is what a user would notice (429 for ever). While it
// does not read, the worker must feel it: the proxy pauses reading instead of buffering the stream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { createServer } from 'node:http';
import { startWithWorker, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';

const N = 4;
let h: Harness;
let port: number;
let key: string;
// A worker that streams far more than any socket buffer holds, as fast as it may.
/** Pieces each stream's worker could write so far. */
const written: number[] = [];
const worker = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const piece = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(16_000) } }] })}\n\n`;
  const stream = written.push(0) - 1;
  let sent = 0;
  const pump = () => {
    while (sent < 4000) {
      sent++;
      written[stream] = sent;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    res.end('data: [DONE]\n\n');
  };
  res.on('close', () => {
    sent = Number.POSITIVE_INFINITY;
  });
  pump();
});

let bed: Awaited<ReturnType<typeof startWithWorker>>;
before(async () => {
  bed = await startWithWorker(worker);
  ({ h, port, key } = bed);
});
after(async () => bed.close());

test('clients that stop reading and hang up while the proxy waits on backpressure free their chat slots', async () => {
  const id = await activeDeployment(h, key);
  const slots = () => h.runtime.services.limits.chats.count(`assistant:${id}`);
  const payload = JSON.stringify({
    model: 'assistant-agent',
    messages: [{ role: 'user', content: 'x' }],
    stream: true,
  });
  const sockets: Socket[] = [];
  for (let i = 0; i < N; i++) {
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => {});
    sock.write(
      `POST /api/v1/assistants/${id}/chat/completions HTTP/1.1\r\nHost: berth.test\r\nContent-Type: application/json\r\n` +
        `X-API-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    );
    sock.pause(); // never read: the proxy's writes back up
    sockets.push(sock);
  }
  const until = async (what: string, ok: () => boolean) => {
    const end = Date.now() + 15_000;
    while (!ok()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what} (slots held: ${slots()})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until('every stream to hold its slot', () => slots() === N);
  // Let the buffers fill so every handler waits on backpressure, then hang up.
  await new Promise((r) => setTimeout(r, 1500));
  // The client reads nothing, so the worker feels it: the proxy does not soak up the 64 MB stream
  // (about 500 pieces fit in the sockets' buffers here; half the stream is far beyond them).
  for (const n of written) assert.ok(n < 2000, `a worker wrote ${n} of 4000 pieces to a client that reads nothing`);
  for (const sock of sockets) sock.destroy();
  await until('every slot to be freed', () => slots() === 0);
  assert.equal(slots(), 0);
});

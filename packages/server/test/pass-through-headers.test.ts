// An open stream through the chat proxy or the model gateway holds what it needs and no more
// (chat/proxy/pass-through.ts): undici keeps the upstream's raw response headers (about ten Buffers)
// on the call's controller for as long as the call lasts, which for an SSE stream is minutes, once
// per open stream. Memory per open stream is a goal of issue 64 (bench:streams); this is its guard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Pool, request, type Dispatcher } from 'undici';
import { close, listen } from '@berth/testkit/http';
import { Relay } from '../src/billing/gateway/relay.js';

// The upstream: an SSE answer that stays open until the test ends, as a model's long reply does.
const open: ServerResponse[] = [];
const upstream = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write('data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n');
  open.push(res);
});

/** The controller undici gave the relay of the one call in flight, and a promise of its first piece. */
let controller: Dispatcher.DispatchController | undefined;
let firstPiece: () => void = () => {};
class Watched extends Relay {
  override onRequestStart(c: Dispatcher.DispatchController) {
    controller = c;
    super.onRequestStart(c);
  }
  override onResponseData(c: Dispatcher.DispatchController, chunk: Buffer) {
    super.onResponseData(c, chunk);
    firstPiece();
  }
}

let pool: Pool;
let front: ReturnType<typeof createServer>;
let frontUrl: string;
before(async () => {
  const upstreamUrl = await listen(upstream);
  pool = new Pool(upstreamUrl);
  // The relay writes into a real client's response, as the gateway's listener does.
  front = createServer((_req, res) => {
    pool.dispatch({ method: 'POST', path: '/chat/completions', body: '{}' }, new Watched(res, () => {}));
  });
  frontUrl = await listen(front);
});
after(async () => {
  for (const res of open) res.end();
  await pool.close();
  // Their connections closed too: a kept-alive one held the file's process open for a minute.
  await Promise.all([close(upstream), close(front)]);
});

test('an open stream does not keep the upstream’s raw response headers', async () => {
  const piece = new Promise<void>((ok) => {
    firstPiece = ok;
  });
  const res = await request(frontUrl);
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/event-stream');
  await piece;
  // The stream is open and flowing; what undici read its headers from is no longer held.
  assert.ok(controller, 'the relay was given its controller');
  assert.equal(controller.rawHeaders ?? null, null);
  const [first] = await once(res.body, 'data');
  assert.match(String(first), /"Hel"/);
  res.body.destroy();
});

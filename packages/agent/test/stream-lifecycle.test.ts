// A stream starts at once and ends cleanly: headers and the role chunk before the model says
// anything, keepalive comments while it thinks, and a client that hangs up while the server waits
// on backpressure leaves no handler, interval or provider request behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { request } from 'undici';
import { FakeModelProvider } from '@berth/testkit';
import { startServe, GATEWAY } from './helpers/serve.js';

let provider: FakeModelProvider;
let s: Awaited<ReturnType<typeof startServe>>;
before(async () => {
  provider = await new FakeModelProvider().start();
  s = await startServe({ provider, keepaliveMs: 100 });
});
after(async () => {
  await s.close();
  await provider.stop();
});

const body = (content: string) =>
  JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content }], stream: true });

test('a model that has not answered yet: headers, the role chunk and keepalives arrive anyway', async () => {
  provider.queue.push({ hang: true });
  const ac = new AbortController();
  // A stream with no keepalive would wait for ever: give up (and fail) well past a few intervals.
  const giveUp = setTimeout(() => ac.abort(new Error('no keepalive arrived')), 10_000);
  const res = await request(`${s.url}/v1/chat/completions`, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY}` },
    body: body('think hard'),
  });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /text\/event-stream/);
  let text = '';
  for await (const c of res.body) {
    text += String(c);
    if (text.includes(': keepalive')) break;
  }
  assert.match(text, /^data: \{[^\n]*"delta":\{"role":"assistant","content":""\}/);
  clearTimeout(giveUp);
  ac.abort();
});

const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('clients that hang up while the server waits on backpressure leave nothing behind', async () => {
  const N = 5;
  const before = timeouts();
  const sockets = [];
  for (let i = 0; i < N; i++) {
    provider.queue.push({ content: 'word '.repeat(60_000) });
    const payload = body('flood me');
    const sock = connect(Number(new URL(s.url).port), '127.0.0.1');
    sock.write(
      `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${GATEWAY}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    );
    sock.pause(); // never read: the server's writes back up
    sockets.push(sock);
  }
  // Wait until every provider request has been made and the streams are stuck on a full buffer.
  const deadline = Date.now() + 15_000;
  while (
    provider.requests.filter((r) => r.body.messages?.at(-1)?.content === 'flood me').length < N &&
    Date.now() < deadline
  ) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  for (const sock of sockets) sock.destroy();
  const settle = Date.now() + 10_000;
  while (timeouts() > before && Date.now() < settle) await new Promise((r) => setTimeout(r, 50));
  assert.ok(
    timeouts() <= before,
    `keepalive intervals of hung-up streams are still running (${before} → ${timeouts()})`,
  );
  assert.equal(provider.requests.filter((r) => r.body.messages?.at(-1)?.content === 'flood me').length, N);
});

// Closing the harness ends even when a test failed before it released what it held (decision
// 0030): a deploy held on the fake's gate, or a list hung on its 'hang' fault, would otherwise keep
// the runtime's close (and on PostgreSQL the store's pool, and the test process) waiting for ever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { startHarness } from './helpers/harness.js';
import { activationBody, pay, purchase } from './helpers/api.js';
import { settledWithin } from './helpers/settled-within.js';
import { until } from './helpers/until.js';

/** Fails unless `close` has ended within `ms` (15 s unless told). */
async function assertCloses(close: Promise<void>, ms = 15_000) {
  const outcome = await settledWithin(ms, close);
  assert.equal(
    outcome.state,
    'resolved',
    `close: ${outcome.state} after ${ms} ms ${outcome.state === 'rejected' ? String(outcome.err) : ''}`,
  );
}

test('a deploy held on the gate, never released: close still ends', async () => {
  const h = await startHarness();
  const key = await h.key();
  const { deploymentId, checkoutUrl } = await purchase(h, key, 'byok');
  await pay(h, checkoutUrl);
  h.workers.gate = new Promise(() => {}); // the release a failed assertion skipped
  const calls = h.workers.createCalls;
  const res = await h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${deploymentId}/activate`,
    headers: { 'x-api-key': key },
    payload: activationBody('byok'),
  });
  assert.equal(res.statusCode, 200, res.body);
  await until('the deploy job to call createWorker', () => h.workers.createCalls !== calls);
  await assertCloses(h.close());
});

test('a list hung on the backend, the fault never cleared: close still ends', async () => {
  const h = await startHarness({}, { reconcileIntervalMs: 100 });
  h.workers.listFault = 'hang';
  await until('a pass to list', () => h.workers.hangingLists > 0);
  await assertCloses(h.close());
});

/** The harness's control plane on a loopback port, and a raw connection to it the server has accepted. */
async function listeningWithRawConnection() {
  const h = await startHarness();
  await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  const server = h.runtime.app.server;
  let accepted: Socket | undefined;
  server.once('connection', (s: Socket) => (accepted = s));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.on('error', () => {});
  const received: Buffer[] = [];
  socket.on('data', (b) => received.push(b));
  const closed = new Promise<void>((ok) => socket.once('close', () => ok()));
  await until('the listener to accept the connection', () => accepted);
  return { h, socket, accepted: accepted!, closed, text: () => Buffer.concat(received).toString('latin1') };
}

// A browser's speculative preconnect, or a client's spare socket: Node counts such a connection as
// active (its headers timeout runs from the connect), so without ending it close waited for the
// client to go, a minute at most: SIGTERM took that long to stop `berth`.
test('a connection that never sent a byte does not hold the listener open: close ends at once and ends it', async () => {
  const { h, socket, closed } = await listeningWithRawConnection();
  // The client leaves if the server did not end it (as the failing case's cleanup): close then ends.
  await assertCloses(h.close(), 2_000).finally(() => socket.destroy());
  await closed;
  assert.equal(socket.destroyed, true);
});

test('a request whose headers are still arriving when the listener closes is answered, then close ends', async () => {
  const { h, socket, accepted, closed, text } = await listeningWithRawConnection();
  socket.write('GET /api/v1/assistants HTTP/1.1\r\nHost: berth.test\r\n');
  await until('the server to read the first line', () => accepted.bytesRead > 0 || undefined);
  const closing = h.close();
  socket.write('X-Api-Key: none\r\n\r\n');
  await closed;
  // Answered as any other (a key that is no key: the envelope's 401), and the connection closed.
  const [head = '', body = ''] = text().split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 401 /, 'the request begun before close is answered');
  assert.match(head, /\r\nconnection: close\r\n/i);
  assert.equal(JSON.parse(body).error.code, 'UNAUTHORIZED');
  await assertCloses(closing, 5_000);
});

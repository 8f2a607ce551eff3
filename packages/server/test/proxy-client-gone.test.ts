// A client that hangs up while its chat is still being checked and admitted (before the proxy
// starts forwarding) must not start a turn on the worker: the turn would run, and cost model
// tokens, for nobody. The admission step is held until the control plane has seen the client's
// socket close, so the order is certain.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { createServer } from 'node:http';
import { startWithWorker, type Harness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';
import { until as poll } from './helpers/until.js';

let h: Harness;
let port: number;
let key: string;
let turns = 0;
const worker = createServer((req, res) => {
  if (req.url?.endsWith('/v1/chat/completions')) turns++;
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' } }] }));
});

let bed: Awaited<ReturnType<typeof startWithWorker>>;
before(async () => {
  bed = await startWithWorker(worker);
  ({ h, port, key } = bed);
});
after(async () => bed.close());

const until = (what: string, ok: () => boolean | Promise<boolean>) =>
  poll(what, async () => (await ok()) || undefined, 15_000, 20);

test('a client that hangs up before the proxy forwards does not start a turn on the worker', async () => {
  const id = await activeDeployment(h, key);
  const slots = () => h.runtime.services.limits.chats.count(`assistant:${id}`);
  const server = h.runtime.app.server;
  const connections = () => new Promise<number>((r) => server.getConnections((_e, n) => r(n)));

  // The allowance check (a read of the period, or a reservation when a cap is set) is the last
  // step before forwarding: hold it until the client's connection is gone from the server.
  const usage = h.runtime.services.usage;
  const { period, reserve } = usage;
  let held = 0;
  const hold = async () => {
    held++;
    await until('the client connection to close on the server', async () => (await connections()) === 0);
  };
  usage.period = async (...args: Parameters<typeof period>) => {
    await hold();
    return period.apply(usage, args);
  };
  usage.reserve = async (...args: Parameters<typeof reserve>) => {
    await hold();
    return reserve.apply(usage, args);
  };
  try {
    const payload = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] });
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => {});
    sock.write(
      `POST /api/v1/assistants/${id}/chat/completions HTTP/1.1\r\nHost: berth.test\r\nContent-Type: application/json\r\n` +
        `X-API-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
    );
    await until('the chat to reach admission', () => held > 0);
    sock.destroy();
    // The handler has finished once its chat slot is free: by then a forwarded request has reached
    // the worker (the proxy waits for the worker's answer).
    await until('the chat slot to be freed', () => slots() === 0);
  } finally {
    usage.period = period;
    usage.reserve = reserve;
  }
  assert.equal(turns, 0, 'the worker received a chat turn for a client that had already gone');

  // A client that stays gets its answer (the hold above is gone).
  const res = await h.inject({
    method: 'POST',
    url: `/api/v1/assistants/${id}/chat/completions`,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(turns, 1);
});

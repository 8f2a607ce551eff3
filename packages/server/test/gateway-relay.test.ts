// The model gateway relays the router's answer as it comes (gateway/relay.ts): a short answer in
// one piece with its usage booked, a router that breaks off mid-stream (the worker sees the break,
// the books keep at most the hold), and a worker that leaves mid-answer (the router's request is
// closed at once, nothing more is read from it, the hold is released).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { request } from 'undici';
import type { Harness } from './helpers/harness.js';
import { gatewayWorker, startGatewayHarness } from './helpers/gateway.js';
import { routerCatalog } from './helpers/catalog.js';
import { activeDeployment } from './helpers/api.js';
import { until } from './helpers/until.js';

const USAGE = { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 };
const chunk = (o: object) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz012', object: 'chat.completion.chunk', created: 1764000000, model: 'openai/gpt-4o-mini', ...o })}\n\n`;
const delta = (content: string) => chunk({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });

/** What the router does with the next call; records whether the caller closed it early. */
let behave: (res: ServerResponse) => void = () => {};
const calls: Array<{ closedEarly: boolean }> = [];
const router = createServer((req: IncomingMessage, res: ServerResponse) => {
  const call = { closedEarly: false };
  calls.push(call);
  req.resume();
  res.on('close', () => {
    if (!res.writableFinished) call.closedEarly = true;
  });
  req.on('end', () => behave(res));
});

let h: Harness;
let url: string;
let credential: string;
let key: { deploymentId: string; periodEnd: string };

before(async () => {
  router.listen(0, '127.0.0.1');
  await once(router, 'listening');
  const port = (router.address() as { port: number }).port;
  const catalog = routerCatalog(`http://127.0.0.1:${port}/v1`);
  ({ h, url } = await startGatewayHarness({ MODEL_CATALOG: catalog }));
  ({ credential, key } = await gatewayWorker(h, await activeDeployment(h, await h.key(), 'managed')));
});
after(async () => {
  await h?.close();
  router.close();
});

const call = (stream = true) =>
  request(`${url}/gateway/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Привет' }], max_tokens: 50, stream }),
  });

async function settled() {
  await h.runtime.services.billing.settles.flush();
  // No row before the period's first call.
  return (await h.runtime.services.usage.period(key)) ?? { allowanceNano: null, reservedNano: 0, usedNano: 0 };
}

test('a short answer arrives whole, as the router wrote it, and is booked from its usage', async () => {
  const before = await settled();
  const body = [delta('При'), delta('вет, мир'), chunk({ choices: [], usage: USAGE }), 'data: [DONE]\n\n'].join('');
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(body);
  };
  const res = await call();
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/event-stream');
  assert.equal(res.headers['cache-control'], 'no-cache');
  assert.equal(await res.body.text(), body);
  const after = await settled();
  assert.equal(after.reservedNano, 0);
  assert.equal(after.usedNano - before.usedNano, 10 * 1000 + 20 * 2000);
});

test('a streamed answer whose last pieces come with its end arrives whole, the end after them', async () => {
  // Node 22.23 wrote a corked response's end (the chunked terminator) ahead of the pieces still
  // corked: the worker read the first piece as the whole answer, an empty reply (decision 0031).
  const first = delta('При');
  const rest = [delta('вет, мир'), chunk({ choices: [], usage: USAGE }), 'data: [DONE]\n\n'].join('');
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(first);
    setTimeout(() => res.end(rest), 30);
  };
  const res = await call();
  assert.equal(res.statusCode, 200);
  assert.equal(await res.body.text(), first + rest);
});

test('a router that breaks off mid-stream: the worker sees the break, the books keep at most the hold', async () => {
  const before = await settled();
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(delta('half an ans'));
    setTimeout(() => res.destroy(), 30);
  };
  const res = await call();
  assert.equal(res.statusCode, 200);
  // The break must reach the worker as a failed read, not leave it waiting for more.
  const read = res.body.text().then(
    () => 'ended as if complete',
    () => 'broke off',
  );
  // unref: the file's process does not live on for the 5 s once the read has broken off.
  const waited = new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000).unref());
  assert.equal(await Promise.race([read, waited]), 'broke off');
  const after = await settled();
  assert.equal(after.reservedNano, 0, 'the hold is released');
  const booked = after.usedNano - before.usedNano;
  // 50 tokens at most of reply, and the prompt estimate: never more than the hold (about 0.1 ms of text).
  assert.ok(booked > 0 && booked <= 1000 * 1000 + 50 * 2000, `booked ${booked}`);
});

test('a worker that leaves mid-answer closes the router call at once and releases its hold', async () => {
  const before = await settled();
  let timer: NodeJS.Timeout | undefined;
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(delta('word '));
    timer = setInterval(() => res.write(delta('word ')), 20);
    res.on('close', () => clearInterval(timer));
  };
  const seen = calls.length;
  const res = await call();
  assert.equal(res.statusCode, 200);
  for await (const _ of res.body) break; // the first piece, then the worker goes away
  res.body.destroy();
  await until('the router call closed before it finished', () => calls[seen]?.closedEarly || undefined, 5000, 10);
  const after = await settled();
  assert.equal(after.reservedNano, 0);
  assert.ok(after.usedNano >= before.usedNano);
});

test('a JSON answer (stream false) and an error answer pass through with their status', async () => {
  const answer = JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion', choices: [], usage: USAGE });
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(answer);
  };
  const ok = await call(false);
  assert.equal(ok.statusCode, 200);
  assert.equal(await ok.body.text(), answer);
  const limited = JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } });
  behave = (res) => {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
    res.end(limited);
  };
  const refused = await call(false);
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['retry-after'], '7');
  assert.equal(await refused.body.text(), limited);
  assert.equal((await settled()).reservedNano, 0);
});

test('a credential altered after the genuine one was used is still refused', async () => {
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  };
  await (await call(false)).body.dump();
  // The last character's lowest bit is padding (43 characters carry 256 bits and 2 spare): flipping
  // it spells the same bytes differently.
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = B64[B64.indexOf(credential.at(-1)!) ^ 1];
  // Another spelling of the same MAC, another deployment's id with this MAC, the text upper-cased.
  const otherId = credential.replace(/^bgw_./, (p) => `bgw_${p.at(-1) === 'a' ? 'b' : 'a'}`);
  for (const forged of [`${credential.slice(0, -1)}${last}`, otherId, credential.toUpperCase()]) {
    const res = await request(`${url}/gateway/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${forged}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    });
    assert.equal(res.statusCode, 401, forged);
    await res.body.dump();
  }
});

test('/gateway/v1 is not served on the public listener, however it is spelled; its own listener serves it', async () => {
  const pub = `http://127.0.0.1:${(h.runtime.app.server.address() as { port: number }).port}`;
  assert.notEqual(pub, url);
  const seen = calls.length;
  for (const path of [
    '/gateway/v1/chat/completions',
    '/GATEWAY/v1/chat/completions',
    '//gateway/v1/chat/completions',
    '/gateway/%761/chat/completions',
    '/gateway/v1/../v1/chat/completions',
  ]) {
    const res = await request(`${pub}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], max_tokens: 5 }),
    });
    const text = await res.body.text();
    assert.equal(res.statusCode, 404, `${path}: ${text}`);
    assert.equal(JSON.parse(text).error.code, 'NOT_FOUND');
  }
  assert.equal(calls.length, seen, 'nothing reached the router through the public listener');
  behave = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end([delta('ok'), chunk({ choices: [], usage: USAGE }), 'data: [DONE]\n\n'].join(''));
  };
  const ok = await call();
  assert.equal(ok.statusCode, 200);
  await ok.body.dump();
  // The public listener still serves the public API.
  const health = await request(`${pub}/healthz`);
  assert.equal(health.statusCode, 200);
  await health.body.dump();
});

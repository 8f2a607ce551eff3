// The chat route's plain case is answered ahead of Fastify (chat/routes/chat-fast-path.ts); every
// other request is Fastify's. The same request, once as the plain case and once with its body
// chunked (which hands it to Fastify), must get the same answer: status, headers, body.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { close, listen } from '@berth/testkit';
import pino from 'pino';
import { fastPathServed, installChatFastPath } from '../src/chat/routes/chat-fast-path.js';
import { ChatProxy } from '../src/chat/proxy/chat-proxy.js';
import { startHarness, type Harness } from './helpers/harness.js';
import { clockAtWindowStart } from './helpers/clock.js';
import { activeDeployment } from './helpers/api.js';
import { createKey, withApiKey } from './helpers/accounts.js';
import { capturingLogger } from './helpers/logs.js';
import { until } from './helpers/until.js';

/** A worker whose answer the last message picks. */
function worker(req: IncomingMessage, res: ServerResponse) {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const ask = JSON.parse(Buffer.concat(chunks).toString()).messages.at(-1).content as string;
    const session = req.headers['x-assistant-session-id'];
    const echo = typeof session === 'string' ? { 'x-assistant-session-id': session } : {};
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'assistant-agent', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    switch (ask) {
      case 'refuse':
        res.writeHead(401, { 'content-type': 'application/json' });
        return res.end('{"error":{"code":"UNAUTHORIZED","message":"not this assistant"}}');
      case 'hang':
        return;
      case 'stream':
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...echo });
        res.write(chunk('Hé'));
        res.write(chunk('llo, wörld'));
        return res.end('data: [DONE]\n\n');
      case 'stream-fail':
        res.writeHead(502, { 'content-type': 'text/event-stream' });
        res.write(chunk('upstream trouble'));
        return res.end();
      case 'break':
        res.writeHead(200, { 'content-type': 'text/event-stream', ...echo });
        res.write(chunk('half'));
        return setTimeout(() => res.socket?.destroy(), 20);
      default:
        res.writeHead(200, { 'content-type': 'application/json', ...echo });
        res.end(
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1,
            model: 'assistant-agent',
            choices: [{ index: 0, message: { role: 'assistant', content: `You said: ${ask}` }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
          }),
        );
    }
  });
}

// The fast path takes only a key the cache holds. The cache's usual 3 s is shorter than this file
// takes on a slow machine (CI once found a warm key gone by the closing test): a revocation still
// leaves the cache at once, so nothing here waits for the time to live.
const KEY_CACHE_MS = 600_000;

/** A control plane listening, with a key and an active assistant whose worker is `worker` above. */
interface Served {
  h: Harness;
  url: string;
  key: string;
  id: string;
}

let fake: Server;
let workerBase: string;
/** The file's control plane; a test that needs other limits or logs serves its own. */
let main: Served;
let h: Harness;
let key: string;
let id: string;

async function serve(env: Record<string, string>, overrides: Parameters<typeof startHarness>[1] = {}): Promise<Served> {
  const r = await startHarness(env, { cacheTtlMs: KEY_CACHE_MS, ...overrides });
  r.workers.urlBase = workerBase;
  const k = await r.key();
  const d = await activeDeployment(r, k);
  await r.runtime.app.listen({ port: 0, host: '127.0.0.1' });
  return { h: r, url: `http://127.0.0.1:${(r.runtime.app.server.address() as AddressInfo).port}`, key: k, id: d };
}

before(async () => {
  fake = createServer(worker);
  workerBase = await listen(fake);
  main = await serve({ RATE_LIMIT_PER_MINUTE: '1000' }, { upstreamTimeoutMs: 400 });
  ({ h, key, id } = main);
  // A key's first call is Fastify's (identify() reads the store); from then on the cache knows it.
  await chat('warm', { via: 'fastify' });
});
after(async () => {
  await h?.close();
  await close(fake);
});

type Via = 'fast' | 'fastify';

/**
 * One chat, and which path answered it. Its body is sent chunked for Fastify (the one difference
 * between a parity pair), unless `plain`: a plain-case body that must still be left to Fastify.
 */
async function chat(
  body: string | object,
  o: {
    via: Via;
    plain?: boolean;
    deployment?: string;
    query?: string;
    headers?: Record<string, string>;
    auth?: Record<string, string>;
    /** Another control plane than the file's. */
    on?: Served;
  },
) {
  const on = o.on ?? main;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const before = fastPathServed(on.h.runtime.app.server);
  const res = await request(`${on.url}/api/v1/assistants/${o.deployment ?? on.id}/chat/completions${o.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(o.auth ?? { authorization: `Bearer ${on.key}` }), ...o.headers },
    body: o.via === 'fast' || o.plain ? text : Readable.from([Buffer.from(text)]),
  });
  const answer = await res.body.text();
  assert.equal(
    fastPathServed(on.h.runtime.app.server) - before,
    o.via === 'fast' ? 1 : 0,
    `answered by the ${o.via} path`,
  );
  return { status: res.statusCode, headers: res.headers, body: answer };
}

const ask = (content: string, extra: object = {}) => ({
  model: 'assistant-agent',
  messages: [{ role: 'user', content }],
  ...extra,
});

// Differ by request or by moment, not by path: each is checked present on both.
const PER_REQUEST = ['x-request-id', 'date', 'ratelimit-remaining', 'ratelimit-reset'];

function same(a: Awaited<ReturnType<typeof chat>>, b: Awaited<ReturnType<typeof chat>>, what: string) {
  assert.equal(a.status, b.status, `${what}: status`);
  const shown = (x: typeof a) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x.headers)) if (!PER_REQUEST.includes(k)) out[k] = v;
    for (const k of PER_REQUEST) assert.ok(x.headers[k] !== undefined, `${what}: ${k} is sent`);
    return out;
  };
  assert.deepEqual(shown(a), shown(b), `${what}: headers`);
  // A request id quoted in a message differs; the rest of the body may not.
  const body = (x: typeof a) => x.body.replaceAll(String(x.headers['x-request-id']), '<request id>');
  assert.equal(body(a), body(b), `${what}: body`);
}

async function both(
  body: string | object,
  what: string,
  o: { deployment?: string; headers?: Record<string, string> } = {},
) {
  const fast = await chat(body, { ...o, via: 'fast' });
  const slow = await chat(body, { ...o, via: 'fastify' });
  same(fast, slow, what);
  return fast;
}

test('an answer, with the session header, is the same on both paths', async () => {
  const r = await both(ask('hi'), 'buffered', { headers: { 'x-assistant-session-id': 'sess-parity-1' } });
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body).choices[0].message.content, 'You said: hi');
  assert.equal(r.headers['x-assistant-session-id'], 'sess-parity-1');
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.equal(r.headers['ratelimit-limit'], '1000');
});

test('a streamed answer, multi-byte text included, is the same on both paths', async () => {
  const r = await both(ask('stream', { stream: true }), 'stream', { headers: { 'x-assistant-session-id': 'sess-2' } });
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^text\/event-stream/);
  assert.match(r.body, /llo, wörld/);
  assert.match(r.body, /data: \[DONE\]/);
});

test('a worker that breaks off the stream: the same error event on both paths', async () => {
  const r = await both(ask('break', { stream: true }), 'broken stream');
  assert.match(r.body, /BAD_GATEWAY/);
});

test("the contract's refusals are the same on both paths", async () => {
  const bad = await both('{"model":', 'not JSON');
  assert.equal(bad.status, 400);
  assert.equal(JSON.parse(bad.body).error.code, 'INVALID_REQUEST');
  const noMessages = await both({ model: 'assistant-agent' }, 'no messages');
  assert.equal(noMessages.status, 400);
  const unknown = await both(ask('hi'), 'unknown assistant', { deployment: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknown.status, 404);
  assert.equal(JSON.parse(unknown.body).error.code, 'NOT_FOUND');
  const refused = await both(ask('refuse'), 'worker refuses');
  assert.equal(refused.status, 409);
  assert.equal(JSON.parse(refused.body).error.code, 'ASSISTANT_NOT_READY');
  assert.equal(refused.headers['retry-after'], '2');
  const slow = await both(ask('hang'), 'worker silent');
  assert.equal(slow.status, 502);
  assert.match(JSON.parse(slow.body).error.message, /did not answer within 400 ms/);
});

test('what is not the plain case is left to Fastify', async () => {
  // "hi" as a plain-case body (not chunked) that what `o` adds must leave to Fastify.
  const hiViaFastify = (o: Omit<Parameters<typeof chat>[1], 'via' | 'plain'>) =>
    chat(ask('hi'), { via: 'fastify', plain: true, ...o });
  // An unknown key is not in the cache: a 401 from the one path that reads the store.
  const stranger = await hiViaFastify({ auth: { authorization: 'Bearer berth_unknownkey0000000000000000' } });
  assert.equal(stranger.status, 401);
  // An organization header is a question identify() answers.
  const org = await hiViaFastify({ headers: { 'x-berth-organization': '00000000-0000-4000-8000-000000000000' } });
  assert.equal(org.status, 400);
  // An uppercase id, another charset spelling: Fastify's, with its own answer.
  const upper = await hiViaFastify({ deployment: id.toUpperCase() });
  assert.ok(upper.status === 200 || upper.status === 404, String(upper.status));
  // A query string: the router's to read, not this pattern's.
  const query = await hiViaFastify({ query: '?trace=1' });
  assert.equal(query.status, 200);
  const charset = await hiViaFastify({ headers: { 'content-type': 'application/json;charset=UTF-8' } });
  assert.equal(charset.status, 200);
});

test('the rate limit counts both paths together and refuses alike', async () => {
  // Counts in fixed minutes: the clock starts at a window's start, so no minute ends mid-test.
  const r = await serve({ RATE_LIMIT_PER_MINUTE: '8' }, { now: clockAtWindowStart() });
  try {
    const send = (via: Via) => chat(ask('hi'), { via, on: r, auth: { 'x-api-key': r.key } });
    // The API calls of activeDeployment counted too (inject is Fastify's): read what is left.
    let left = Number((await send('fastify')).headers['ratelimit-remaining']);
    while (left > 0) {
      const a = await send(left % 2 ? 'fast' : 'fastify');
      assert.equal(a.status, 200);
      assert.equal(Number(a.headers['ratelimit-remaining']), left - 1, 'one count a chat, whichever path');
      left--;
    }
    const fast = await send('fast');
    const slow = await send('fastify');
    assert.equal(fast.status, 429);
    assert.equal(JSON.parse(fast.body).error.code, 'RATE_LIMITED');
    assert.ok(Number(fast.headers['retry-after']) >= 1);
    assert.equal(fast.headers['ratelimit-remaining'], '0');
    const { 'x-request-id': _a, date: _b, 'ratelimit-reset': ra, 'retry-after': rb, ...fastRest } = fast.headers;
    const { 'x-request-id': _c, date: _d, 'ratelimit-reset': sa, 'retry-after': sb, ...slowRest } = slow.headers;
    assert.deepEqual(fastRest, slowRest);
    assert.ok(Math.abs(Number(ra) - Number(sa)) <= 1 && Math.abs(Number(rb) - Number(sb)) <= 1);
    assert.equal(
      fast.body.replace(/retry in \d+ s|"retryAfterSeconds":\d+/g, ''),
      slow.body.replace(/retry in \d+ s|"retryAfterSeconds":\d+/g, ''),
    );
  } finally {
    await r.h.close();
  }
});

test('a streamed 5xx is logged once, at info, whichever path answered it', async () => {
  const { lines, logger } = capturingLogger('info');
  const r = await serve({}, { logger });
  try {
    const ids: string[] = [];
    // Fastify first: the key's first call, which the cache then knows.
    for (const via of ['fastify', 'fast'] as const) {
      const a = await chat(ask('stream-fail', { stream: true }), { via, on: r });
      assert.equal(a.status, 502);
      assert.match(a.body, /upstream trouble/);
      ids.push(String(a.headers['x-request-id']));
    }
    const completed = (rid: string) =>
      lines.map((l) => JSON.parse(l)).filter((l) => l.reqId === rid && l.msg === 'request completed');
    await until('both lines', () => ids.every((rid) => completed(rid).length > 0) || undefined);
    for (const [i, rid] of ids.entries()) {
      const mine = completed(rid);
      assert.equal(mine.length, 1, `one line (${i ? 'fast path' : 'Fastify'})`);
      assert.equal(mine[0].level, 30);
      assert.equal(mine[0].res.statusCode, 502);
    }
  } finally {
    await r.h.close();
  }
});

test('once the app is closing, chats are left to Fastify (its 503), not forwarded to pools being closed', async () => {
  // A server whose own listener stands in for Fastify's, with the harness's services and proxy.
  const server = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"error":"Service Unavailable"}');
  });
  const proxy = new ChatProxy(400);
  const fast = installChatFastPath(server, h.runtime.services, proxy, { logger: pino({ level: 'silent' }) });
  const base = await listen(server);
  try {
    const send = async () => {
      const res = await request(`${base}/api/v1/assistants/${id}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(ask('hi')),
      });
      return { status: res.statusCode, body: await res.body.text() };
    };
    const open = await send();
    assert.equal(open.status, 200, open.body);
    assert.equal(fastPathServed(server), 1);
    fast.close();
    const closing = await send();
    assert.equal(closing.status, 503);
    assert.equal(fastPathServed(server), 1);
  } finally {
    await close(server);
    await proxy.close();
  }
});

test('a revoked key is refused at once, and another tenant’s key finds no assistant, on both paths', async () => {
  const second = await createKey(h, withApiKey(key), 'to revoke');
  const auth = { 'x-api-key': second.key };
  await chat(ask('hi'), { via: 'fastify', auth });
  assert.equal((await chat(ask('hi'), { via: 'fast', auth })).status, 200);
  const revoked = await h.inject({ method: 'DELETE', url: `/api/keys/${second.id}`, headers: { 'x-api-key': key } });
  assert.equal(revoked.statusCode, 204, revoked.body);
  // Out of the cache with the revocation: Fastify's identify() reads the store and refuses.
  const after = await chat(ask('hi'), { via: 'fastify', plain: true, auth });
  assert.equal(after.status, 401);

  // Another person's cached key asking for this person's assistant: the same 404 both ways.
  const other = await h.key('someone-else@example.com');
  await chat(ask('hi'), {
    via: 'fastify',
    auth: { 'x-api-key': other },
    deployment: '00000000-0000-4000-8000-000000000001',
  });
  const fast = await chat(ask('hi'), { via: 'fast', auth: { 'x-api-key': other } });
  const slow = await chat(ask('hi'), { via: 'fastify', auth: { 'x-api-key': other } });
  same(fast, slow, "another tenant's assistant");
  assert.equal(fast.status, 404);
});

test('past the rate limit, the 429 comes before the body is sent (nobody uploads 8 MB to be refused)', async () => {
  const r = await serve({ RATE_LIMIT_PER_MINUTE: '6' });
  let socket: Socket | undefined;
  try {
    const { key: k, id: d } = r;
    const port = Number(new URL(r.url).port);
    const send = (via: Via) => chat(ask('hi'), { via, on: r, auth: { 'x-api-key': k } });
    await send('fastify');
    while ((await send('fast')).status !== 429);
    const served = fastPathServed(r.h.runtime.app.server);
    // The headers and a sliver of a large body: the answer must not wait for the rest.
    socket = connect(port, '127.0.0.1');
    const head = [
      `POST /api/v1/assistants/${d}/chat/completions HTTP/1.1`,
      `host: 127.0.0.1:${port}`,
      'content-type: application/json',
      `x-api-key: ${k}`,
      'content-length: 4000000',
      '',
      '{"model":"assistant-agent","messages":[',
    ].join('\r\n');
    socket.write(head);
    const answer = await new Promise<string>((ok, fail) => {
      let got = '';
      const timer = setTimeout(() => fail(new Error(`no answer before the body; got ${JSON.stringify(got)}`)), 3000);
      socket!.on('data', (c: Buffer) => {
        got += c.toString();
        if (got.includes('\r\n\r\n') && got.includes('RATE_LIMITED')) {
          clearTimeout(timer);
          ok(got);
        }
      });
      socket!.on('error', fail);
    });
    assert.match(answer, /^HTTP\/1\.1 429 /);
    assert.match(answer, /retry-after: \d+/i);
    assert.equal(fastPathServed(r.h.runtime.app.server), served + 1, 'the fast path answered it');
  } finally {
    // An unanswered half-sent request would hold the server's close.
    socket?.destroy();
    await r.h.close();
  }
});

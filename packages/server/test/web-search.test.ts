// web_search through the control plane (DESIGN §7.4): a loopback server speaking SearXNG's JSON
// API behind SEARCH_URL, the gateway's /gateway/v1/search route with a deployment's credential,
// one ledger row per answered query, a sentence (not a hang) when the provider fails or stalls,
// and the whole path from a Telegram message through the real agent host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { startHarness, type Harness } from './helpers/harness.js';
import { activeDeployment, assertError } from './helpers/api.js';
import { startE2E } from './helpers/e2e.js';
import { brave } from '../src/billing/gateway/search/brave.js';
import { tavily } from '../src/billing/gateway/search/tavily.js';

type Behaviour = 'ok' | 'fail' | 'hang';
let behaviour: Behaviour = 'ok';
const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];
const searx = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    seen.push({ url: req.url ?? '', headers: req.headers, body });
    const u = new URL(req.url ?? '/', 'http://x');
    if (behaviour === 'hang') return;
    if (behaviour === 'fail') {
      res.writeHead(500, { 'content-type': 'text/html' });
      return res.end('<h1>Internal Server Error</h1>');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    const q = u.searchParams.get('q') ?? (body ? String(JSON.parse(body).query) : '');
    const results = [
      { title: `About ${q}`, url: 'https://example.org/about', content: `All about ${q}.`, engine: 'x', score: 1 },
      { title: 'Second', url: 'https://example.net/2', content: 'More.', engine: 'y', score: 0.5 },
      { title: 'Not a web link', url: 'javascript:alert(1)', content: 'dropped' },
    ];
    // Brave's and Tavily's shapes on their own paths, for their adapters.
    if (u.pathname === '/res/v1/web/search')
      return res.end(JSON.stringify({ web: { results: results.map((r) => ({ ...r, description: r.content })) } }));
    res.end(JSON.stringify({ query: q, number_of_results: 2, results }));
  });
});
let searxUrl = '';

before(async () => {
  searx.listen(0, '127.0.0.1');
  await once(searx, 'listening');
  searxUrl = `http://127.0.0.1:${(searx.address() as { port: number }).port}`;
});
after(() => {
  searx.closeAllConnections();
  searx.close();
});

/** SEARCH_URL is the loopback SearXNG; `env` adds the price and limits. */
const searxng = (env: Record<string, string>) => ({ SEARCH_PROVIDER: 'searxng', SEARCH_URL: searxUrl, ...env });

/** What the workers backend was told to run for deployment `id`. */
const workerSpec = async (h: Harness, id: string) =>
  h.workers.workers.get((await h.runtime.services.deployments.findById(id))!.workerName)!;

const search = (h: Harness, credential: string | undefined, body: unknown) =>
  h.inject({
    method: 'POST',
    url: '/gateway/v1/search',
    headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    payload: JSON.stringify(body),
  });

test('the search route answers from SearXNG, books each answered query, and fails with a sentence in time', async () => {
  const h = await startHarness(searxng({ SEARCH_PRICE_USD: '0.01', SEARCH_TIMEOUT_SECONDS: '1' }));
  try {
    const id = await activeDeployment(h, await h.key(), 'byok');
    const spec = await workerSpec(h, id);
    assert.ok(spec.search, 'the worker is told where to search');
    // The gateway's own listener (decision 0029), where the model gateway answers too.
    assert.equal(spec.search.url, `${h.runtime.gatewayUrl()}/gateway/v1/search`);
    const credential = spec.search.credential;

    behaviour = 'ok';
    const ok = await search(h, credential, { query: 'tide times in Brest' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().data.results, [
      {
        title: 'About tide times in Brest',
        url: 'https://example.org/about',
        snippet: 'All about tide times in Brest.',
      },
      { title: 'Second', url: 'https://example.net/2', snippet: 'More.' },
    ]);
    const asked = new URL(seen.at(-1)!.url, 'http://x');
    assert.equal(asked.pathname, '/search');
    assert.equal(asked.searchParams.get('format'), 'json');
    assert.equal(asked.searchParams.get('q'), 'tide times in Brest');

    await h.runtime.services.billing.settles.flush();
    const rows = () =>
      h.runtime.store.db
        .selectFrom('usage_records')
        .selectAll()
        .where('deployment_id', '=', id)
        .where('source', '=', 'search')
        .execute();
    const booked = await rows();
    assert.equal(booked.length, 1);
    assert.equal(Number(booked[0]!.cost_nano), 10_000_000, '0.01 USD');
    assert.equal(booked[0]!.model, 'search:searxng');

    assertError(await search(h, undefined, { query: 'x' }), 401, 'UNAUTHORIZED');
    assertError(await search(h, `${credential.slice(0, -2)}xx`, { query: 'x' }), 401, 'UNAUTHORIZED');
    assertError(await search(h, credential, { query: '' }), 400, 'INVALID_REQUEST');
    assertError(await search(h, credential, { query: 'x', provider: 'other' }), 400, 'INVALID_REQUEST');
    assertError(await search(h, credential, { query: 'x'.repeat(401) }), 400, 'INVALID_REQUEST');

    behaviour = 'fail';
    const failed = await search(h, credential, { query: 'x' });
    assertError(failed, 502, 'BAD_GATEWAY');
    assert.match(failed.json().error.message, /Web search is unavailable: the search provider answered 500/);
    behaviour = 'hang';
    const hung = await search(h, credential, { query: 'x' });
    assertError(hung, 502, 'BAD_GATEWAY');
    assert.match(hung.json().error.message, /did not answer in time/);
    await h.runtime.services.billing.settles.flush();
    assert.equal((await rows()).length, 1, 'a failed query costs nothing');
  } finally {
    behaviour = 'ok';
    searx.closeAllConnections();
    await h.close();
  }
});

test('without SEARCH_PROVIDER workers get no search target; the brave and tavily adapters map their answers', async () => {
  const h = await startHarness();
  try {
    const id = await activeDeployment(h, await h.key(), 'byok');
    const spec = await workerSpec(h, id);
    assert.equal(spec.search, undefined);
  } finally {
    await h.close();
  }
  behaviour = 'ok';
  const signal = AbortSignal.timeout(5000);
  const b = await brave(searxUrl, 'brave-key-0123').search('otters', signal);
  assert.equal(seen.at(-1)!.headers['x-subscription-token'], 'brave-key-0123');
  assert.deepEqual(
    b.map((r) => r.url),
    ['https://example.org/about', 'https://example.net/2'],
  );
  const t = await tavily(searxUrl, 'tvly-key-0123').search('otters', signal);
  assert.equal(seen.at(-1)!.headers.authorization, 'Bearer tvly-key-0123');
  assert.deepEqual(JSON.parse(seen.at(-1)!.body), { query: 'otters', max_results: 8 });
  assert.deepEqual(t[0], { title: 'About otters', url: 'https://example.org/about', snippet: 'All about otters.' });
});

test('a Telegram user asks; the agent searches through the control plane and answers citing links', async () => {
  const e = await startE2E(searxng({ SEARCH_PRICE_USD: '0.02' }));
  try {
    const token = '7200000026:AAsearchE2eFakeTokenForTests_abcdefgh';
    e.tg.addBot(token);
    const id = await e.activate(token);
    await e.waitForStatus(id, ['active']);
    e.provider.queue.push({ toolCalls: [{ name: 'web_search', arguments: { query: 'otter facts' } }] });
    e.provider.fallback = (body) => {
      const tool = [...body.messages].reverse().find((m: any) => m.role === 'tool');
      const results = JSON.parse(tool?.content ?? '{}').results ?? [];
      return { content: results.map((r: any) => `[${r.title}](${r.url})`).join(' ') || 'no results' };
    };
    e.tg.userSends(token, 4242, { text: 'tell me about otters' });
    const answer = await e.tg.waitForSent((m) => m.chat_id === 4242, 20_000);
    // Rendered as Telegram shows it: the cited title is a link to the result.
    assert.match(String(answer.html), /<a href="https:\/\/example\.org\/about">About otter facts<\/a>/);
    const toolOffer = e.provider.requests[0]!.body.tools.map((t: any) => t.function.name);
    assert.ok(toolOffer.includes('web_search'));
    await e.runtime.services.billing.settles.flush();
    const booked = await e.runtime.store.db
      .selectFrom('usage_records')
      .selectAll()
      .where('deployment_id', '=', id)
      .where('source', '=', 'search')
      .execute();
    assert.equal(booked.length, 1);
    assert.equal(Number(booked[0]!.cost_nano), 20_000_000);
  } finally {
    await e.close();
  }
});

test("a byok deployment's searches, on the operator's bill, stop at what a managed deployment's monthly credit buys (issue 57 R6)", async () => {
  const h = await startHarness(searxng({ SEARCH_PRICE_USD: '0.5', MANAGED_MONTHLY_CREDITS_USD: '1' }));
  try {
    behaviour = 'ok';
    const id = await activeDeployment(h, await h.key(), 'byok');
    const credential = (await workerSpec(h, id)).search!.credential;
    // One after another, as one reply's calls run: each sees the one before it.
    for (const query of ['first', 'second']) assert.equal((await search(h, credential, { query })).statusCode, 200);
    const third = await search(h, credential, { query: 'third' });
    assertError(third, 429, 'CREDITS_EXHAUSTED');
    assert.match(third.json().error.message, /used this period's web searches/);
    assert.equal(
      new URL(seen.at(-1)!.url, 'http://x').searchParams.get('q'),
      'second',
      'the third never reached the provider',
    );
  } finally {
    await h.close();
  }
});

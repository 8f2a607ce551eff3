import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { listen, close } from '@berth/testkit';
import { evaluate, calculatorTool } from '../src/tools/calculator.js';
import { datetimeTool } from '../src/tools/datetime.js';
import { fetchPageTool, htmlToText, FETCH_MAX_CHARS } from '../src/tools/fetch-page.js';
import { sharedHtmlPool } from '../src/tools/html-pool.js';

after(() => sharedHtmlPool().close());
import { ToolFailure } from '../src/tools/tool.js';
import { request } from 'undici';
import { BlockedAddressError, createPublicOnlyAgent } from '@berth/contracts/net';

const signal = new AbortController().signal;

test('calculator: precedence, associativity, functions, constants', () => {
  const cases: Array<[string, number]> = [
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['10 / 4', 2.5],
    ['10 % 4', 2],
    ['sqrt(16) + abs(-3)', 7],
    ['max(1, 5, 3)', 5],
    ['round(pi * 100) / 100', 3.14],
    ['2 ** 10', 1024],
    ['1.5e3 + .5', 1500.5],
    ['log(1000)', 3],
    ['ln(e)', 1],
    ['--3', 3],
  ];
  for (const [expr, want] of cases)
    assert.ok(Math.abs(evaluate(expr) - want) < 1e-9, `${expr} = ${evaluate(expr)}, want ${want}`);
});

test('calculator: bad input is a tool failure the model can read, never code execution', async () => {
  for (const expr of ['1 +', '(1', '1 / 0', 'process.exit(1)', 'constructor', '2 $ 3', 'a'.repeat(501)]) {
    assert.throws(() => evaluate(expr), ToolFailure, expr);
  }
  assert.equal(JSON.parse(await calculatorTool.run({ expression: '6*7' }, signal)).result, 42);
  assert.equal(JSON.parse(await calculatorTool.run({ expression: '0.1 + 0.2' }, signal)).result, 0.3);
});

test('datetime: a time zone, UTC by default, a clear error for an unknown zone', async () => {
  const tool = datetimeTool(() => new Date('2026-03-01T12:00:00Z'));
  const tokyo = JSON.parse(await tool.run({ timezone: 'Asia/Tokyo' }, signal));
  assert.match(tokyo.local, /21:00:00/);
  assert.equal(tokyo.iso_utc, '2026-03-01T12:00:00.000Z');
  assert.equal(JSON.parse(await tool.run({}, signal)).timezone, 'UTC');
  await assert.rejects(tool.run({ timezone: 'Mars/Olympus' }, signal), /Unknown time zone/);
  assert.equal(tool.label({ timezone: 'Asia/Tokyo' }), 'Checking the time in Asia/Tokyo');
});

test('fetch_web_page: refuses non-public and non-http targets', async () => {
  const tool = fetchPageTool();
  try {
    for (const url of [
      'http://127.0.0.1/',
      'http://localhost:8080/',
      'http://[::1]/',
      'http://10.1.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://2130706433/',
    ]) {
      await assert.rejects(tool.run({ url }, signal), /not a public address/, url);
    }
    await assert.rejects(tool.run({ url: 'file:///etc/passwd' }, signal), /Only http and https/);
    await assert.rejects(tool.run({ url: 'not a url' }, signal), /absolute http/);
  } finally {
    await tool.dispatcher.close();
  }
});

test('the public-only dispatcher refuses a name that resolves to loopback, at connect time', async () => {
  const server = createServer((_q, r) => r.end('secret'));
  const base = await listen(server);
  const dispatcher = createPublicOnlyAgent();
  try {
    // assertPublicHost would stop "localhost" earlier; the dispatcher alone must stop it too.
    const err = await request(`http://localhost:${new URL(base).port}/`, { dispatcher }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(err, 'the request was refused');
    assert.ok(err instanceof BlockedAddressError || err.cause instanceof BlockedAddressError, String(err));
    const open = createPublicOnlyAgent({ allowPrivate: true });
    const ok = await request(`http://localhost:${new URL(base).port}/`, { dispatcher: open });
    assert.equal(await ok.body.text(), 'secret', 'the same request passes with the development switch');
    await open.close();
  } finally {
    await dispatcher.close();
    await close(server);
  }
});

test('fetch_web_page: text from HTML, redirects followed and checked, size and time limits', async () => {
  const server = createServer((req, res) => {
    if (req.url === '/page') {
      res.setHeader('content-type', 'text/html');
      res.end(
        '<html><head><title>Berth</title><style>x{}</style></head><body><h1>Hello</h1><p>World &amp; more</p><script>evil()</script></body></html>',
      );
    } else if (req.url === '/hop') {
      res.writeHead(302, { location: '/page' });
      res.end();
    } else if (req.url === '/to-private') {
      res.writeHead(302, { location: 'http://10.0.0.1/' });
      res.end();
    } else if (req.url === '/big') {
      res.setHeader('content-type', 'text/plain');
      res.end('y'.repeat(2 * 1024 * 1024));
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('late'), 2000);
    } else {
      res.statusCode = 404;
      res.end('nope');
    }
  });
  const base = await listen(server);
  // Loopback pages are only reachable with the development switch, as here.
  const tool = fetchPageTool({ allowPrivate: true, timeoutMs: 500 });
  try {
    const page = JSON.parse(await tool.run({ url: `${base}/hop` }, signal));
    assert.equal(page.content, 'Berth\n\nHello\nWorld & more');
    assert.ok(page.url.endsWith('/page'));
    const big = JSON.parse(await tool.run({ url: `${base}/big` }, signal));
    assert.equal(big.content.length, FETCH_MAX_CHARS);
    assert.equal(big.truncated, true);
    await assert.rejects(tool.run({ url: `${base}/missing` }, signal), /HTTP 404/);
    await assert.rejects(tool.run({ url: `${base}/slow` }, signal), /within 0.5 s/);
  } finally {
    await tool.dispatcher.close();
    await close(server);
  }
  assert.equal(await htmlToText('<p>a</p><p>b</p>'), 'a\nb');
});

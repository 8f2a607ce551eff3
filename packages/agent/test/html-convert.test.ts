import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { listen, close } from '@berth/testkit';
import { fetchPageTool, htmlToText } from '../src/tools/fetch-page.js';
import { HtmlPool, PageTooComplexError } from '../src/tools/html-pool.js';
import { ThreadPool } from '../src/threads/thread-pool.js';
import { decodePage } from '../src/tools/charset.js';

const signal = new AbortController().signal;
const MiB = 1024 * 1024;
// Generous: a loaded CI machine must not turn a linear conversion into a failure.
const pool = new HtmlPool({ size: 2, deadlineMs: 20_000 });
after(() => pool.close());

// [name, page, whether the pool may refuse it as too complex instead of converting it]
const hostile: Array<[string, string, boolean?]> = [
  ['repeated "<a "', 'x<p>start</p>' + '<a '.repeat(MiB / 3)],
  ['repeated "<script"', '<p>start</p>' + '<script'.repeat(MiB / 7)],
  ['unclosed comments', '<p>start</p>' + '<!--'.repeat(MiB / 4)],
  ['deep nesting', '<p>start</p>' + '<div>'.repeat(MiB / 5), true],
  ['repeated entities', '<p>start</p>' + '&amp;&#x41;&nbsp'.repeat(MiB / 16)],
  ['unterminated attribute', '<p>start</p><a href="' + 'x'.repeat(MiB)],
];

// The deadline bounds the slowest case; within it the linear cases must produce their text.
const bounded = new HtmlPool({ size: 2, deadlineMs: 3000 });
after(() => bounded.close());
for (const [name, html, mayRefuse] of hostile) {
  test(`hostile HTML converts (or is refused as too complex) instead of stalling: ${name}`, async () => {
    assert.ok(html.length >= MiB - 16);
    const outcome = await htmlToText(html, mayRefuse ? bounded : pool).catch((err: Error) => err);
    if (mayRefuse && outcome instanceof PageTooComplexError) return;
    assert.equal(typeof outcome, 'string', String(outcome));
    assert.match(outcome as string, /start/);
  });
}

test('a conversion past its deadline terminates its worker, answers "too complex", and the pool recovers', async () => {
  const tight = new HtmlPool({ size: 1, deadlineMs: 1 });
  try {
    const page = '<table>' + '<tr><td>cell</td></tr>'.repeat(200_000) + '</table>';
    await assert.rejects(
      tight.convert(page),
      (err: Error) => err instanceof PageTooComplexError && /too complex/.test(err.message),
    );
    const roomy = new HtmlPool({ size: 1, deadlineMs: 20_000 });
    assert.equal(await roomy.convert('<p>fine</p>'), 'fine');
    await roomy.close();
  } finally {
    await tight.close();
  }
});

test('entities decode; script, style and head are dropped; block elements become lines', async () => {
  const text = await htmlToText(
    '<html><head><title>T &amp; U</title><style>b{}</style></head><body><p>a &lt;b&gt; &eacute; &#8364; &#x1F600;</p><script>x()</script><div>next</div></body></html>',
    pool,
  );
  assert.equal(text, 'T & U\n\na <b> é € 😀\nnext');
});

test('charsets: header, <meta charset>, <meta http-equiv>, BOM, unknown label falls back to UTF-8', () => {
  const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет"
  const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]); // "日本語"
  assert.equal(decodePage(cp1251, 'text/html; charset=windows-1251'), 'Привет');
  assert.equal(decodePage(sjis, 'text/html; charset="Shift_JIS"'), '日本語');
  const meta = Buffer.concat([Buffer.from('<html><head><meta charset="windows-1251"></head><body>'), cp1251]);
  assert.match(decodePage(meta, 'text/html'), /Привет/);
  const equiv = Buffer.concat([
    Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"><p>'),
    sjis,
  ]);
  assert.match(decodePage(equiv, 'text/html'), /日本語/);
  assert.equal(
    decodePage(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]),
      'text/html; charset=windows-1251',
    ),
    'héllo',
  );
  assert.equal(decodePage(Buffer.from('héllo'), 'text/html; charset=no-such-charset'), 'héllo');
});

test('fetch_web_page: pages in windows-1251 and Shift_JIS read right; a hostile page answers "too complex"', async () => {
  const server = createServer((req, res) => {
    if (req.url === '/ru') {
      res.setHeader('content-type', 'text/html; charset=windows-1251');
      res.end(
        Buffer.concat([Buffer.from('<p>'), Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]), Buffer.from('</p>')]),
      );
    } else if (req.url === '/jp') {
      res.setHeader('content-type', 'text/html');
      res.end(
        Buffer.concat([
          Buffer.from('<meta charset="shift_jis"><p>'),
          Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]),
          Buffer.from('</p>'),
        ]),
      );
    } else {
      res.setHeader('content-type', 'text/html');
      res.end('<p>x</p>' + '<a '.repeat(400_000));
    }
  });
  const base = await listen(server);
  const tight = new HtmlPool({ size: 1, deadlineMs: 1 });
  const tool = fetchPageTool({ allowPrivate: true, timeoutMs: 5000, htmlPool: pool });
  const tightTool = fetchPageTool({ allowPrivate: true, timeoutMs: 5000, htmlPool: tight });
  try {
    assert.equal(JSON.parse(await tool.run({ url: `${base}/ru` }, signal)).content, 'Привет');
    assert.equal(JSON.parse(await tool.run({ url: `${base}/jp` }, signal)).content, '日本語');
    await assert.rejects(tightTool.run({ url: `${base}/hostile` }, signal), /Page too complex/);
  } finally {
    await tool.dispatcher.close();
    await tightTool.dispatcher.close();
    await tight.close();
    await close(server);
  }
});

test("one tenant's burst of heavy pages neither refuses nor starves another tenant's page", async () => {
  const shared = new HtmlPool({ size: 1, deadlineMs: 60_000 });
  try {
    const heavy = '<table>' + '<tr><td>cell</td></tr>'.repeat(20_000) + '</table>';
    const finished: string[] = [];
    const burst = Array.from({ length: 40 }, (_, i) =>
      shared.convert(heavy, 'tenant-a').then(
        () => finished.push(`a${i}`),
        (err: Error) => {
          assert.ok(err instanceof PageTooComplexError, String(err));
          return 'refused';
        },
      ),
    );
    const tiny = shared.convert('<p>tiny</p>', 'tenant-b').then((text) => {
      finished.push('b');
      return text;
    });
    assert.equal(await tiny, 'tiny');
    const outcomes = await Promise.all(burst);
    // B waited behind at most the page running and A's next one in turn, not A's whole backlog.
    assert.ok(finished.indexOf('b') <= 2, `b finished after ${finished.indexOf('b')} of A's pages`);
    // A's own share is bounded: most of its burst is refused at once, not queued for everyone.
    const refused = outcomes.filter((o) => o === 'refused').length;
    assert.ok(refused >= 20, `only ${refused} of A's 40 were refused`);
  } finally {
    await shared.close();
  }
});

test("a fresh thread's start-up is not the page's time: a simple page within a 300 ms deadline", async () => {
  // The thread loads html-to-text (and here tsx) first: seconds on a busy host, never under 300 ms.
  const fresh = new HtmlPool({ size: 1, deadlineMs: 300 });
  try {
    assert.equal(await fresh.convert('<p>fine</p>'), 'fine');
  } finally {
    await fresh.close();
  }
});

test('a thread that never finishes loading fails its job after the start-up limit, and the pool goes on', async () => {
  const pool = new ThreadPool<{ html: string }, { text?: string }>({
    name: 'html',
    worker: new URL('./fixtures/never-ready-worker.mjs', import.meta.url),
    size: 1,
    deadlineMs: 60_000,
    startupMs: 300,
    maxQueued: 4,
    maxQueuedPerTenant: 4,
    idleMs: 30_000,
    resourceLimits: {},
    words: {
      error: (m) => new PageTooComplexError(m),
      busy: 'busy',
      deadline: (s) => `deadline ${s} s`,
      crashed: (d) => `crashed: ${d}`,
      closed: 'closed',
    },
  });
  try {
    const t0 = Date.now();
    await assert.rejects(pool.run('t', { html: '<p>x</p>' }), /crashed: its thread did not start within 0\.3 s/);
    assert.ok(Date.now() - t0 < 10_000);
    // Three at once on a pool of one: each stuck thread is terminated and has exited before the
    // next job's thread starts (never two threads of a pool of one).
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, pool.threads)), 5);
    const runs = [1, 2, 3].map(() => pool.run('t', { html: '<p>x</p>' }));
    for (const run of runs) await assert.rejects(run, /did not start/);
    clearInterval(watch);
    assert.equal(most, 1, 'threads alive at once');
  } finally {
    await pool.close();
  }
});

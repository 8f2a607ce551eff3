// Issue 57 R9: a deadline built as AbortSignal.any([signal, AbortSignal.timeout(ms)]) can be
// garbage-collected in Node 20 before it fires; a page that trickled its body held a chat for
// 180 s. Here the page and the image trickle a byte every 50 ms (so undici's own body timeout never
// fires) and the collector runs on every byte: the deadline must still end the fetch on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { listen, close } from '@berth/testkit';
import { fetchPageTool } from '../src/tools/fetch-page.js';
import { fetchImage } from '../src/media/fetch-image.js';

// The runner starts node without --expose-gc; the flag can still be set before the first use.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const DEADLINE_MS = 600;
/** Far past the deadline: without the fix the fetch runs for ever, and this ends the test red. */
const BOUND_MS = 8_000;

/** A server whose every answer starts at once and then never ends, a byte every 50 ms. */
async function tricklingServer(type: string) {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': type });
    const drip = setInterval(() => {
      res.write(' ');
      gc();
    }, 50);
    res.on('close', () => clearInterval(drip));
  });
  return { server, base: await listen(server) };
}

async function within<T>(work: Promise<T>): Promise<T | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'still running'>((ok) => {
    timer = setTimeout(() => ok('still running'), BOUND_MS);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

test('fetch_web_page ends a page that never finishes at its deadline, collector or not', async () => {
  const { server, base } = await tricklingServer('text/html');
  const tool = fetchPageTool({ allowPrivate: true, timeoutMs: DEADLINE_MS });
  try {
    const started = Date.now();
    const outcome = await within(
      tool.run({ url: `${base}/endless` }, new AbortController().signal).then(
        () => 'answered',
        (err: Error) => err.message,
      ),
    );
    assert.match(outcome, /did not load within 0.6 s/);
    assert.ok(Date.now() - started < DEADLINE_MS + 1500, `ended after ${Date.now() - started} ms`);
  } finally {
    await close(server);
    await tool.dispatcher.close();
  }
});

test("a chat API client's image that never finishes is refused at its deadline, collector or not", async () => {
  const { server, base } = await tricklingServer('image/png');
  try {
    const started = Date.now();
    const outcome = await within(
      fetchImage(`${base}/endless.png`, { allowPrivate: true, timeoutMs: DEADLINE_MS }).then(
        () => 'fetched',
        (err: Error) => err.message,
      ),
    );
    assert.match(outcome, /could not be fetched/);
    assert.ok(Date.now() - started < DEADLINE_MS + 1500, `ended after ${Date.now() - started} ms`);
  } finally {
    await close(server);
  }
});

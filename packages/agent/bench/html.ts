// bench:html: converting hostile pages must neither take long nor slow down other tenants.
// 1) The old regex converter on a 64 KB hostile page (baseline) next to the worker-pool converter
//    on a 1 MiB hostile page. 2) Another assistant's chat latency (a tiny Fastify route on the same
//    event loop, at a fixed request rate) with and without hostile pages being converted meanwhile.
import Fastify from 'fastify';
import { request } from 'undici';
import { HtmlPool } from '../src/tools/html-pool.js';

function oldRegexHtmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript|svg|head)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<\/(p|div|h\d|li|tr|br|section|article)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, ' ')
    .trim();
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;
const hostile = (bytes: number) => '<p>start</p>' + '<a '.repeat(Math.floor(bytes / 3));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const pool = new HtmlPool({ size: 2, deadlineMs: 5000 });

let t0 = process.hrtime.bigint();
oldRegexHtmlToText(hostile(64 * 1024));
const oldMs = ms(t0);
await pool.convert('<p>warm</p>');
const newTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  t0 = process.hrtime.bigint();
  await pool.convert(hostile(1024 * 1024));
  newTimes.push(ms(t0));
}
console.log(`old regex converter, 64 KB hostile page:  ${oldMs.toFixed(0)} ms (baseline)`);
console.log(`worker-pool converter, 1 MiB hostile page: median ${pct(newTimes, 0.5).toFixed(0)} ms over 5 runs`);

const app = Fastify();
app.post('/chat', async () => ({ reply: 'hello' }));
const base = await app.listen({ host: '127.0.0.1', port: 0 });

async function chatLatencies(rate: number, seconds: number): Promise<number[]> {
  const out: number[] = [];
  const pending: Promise<void>[] = [];
  const interval = 1000 / rate;
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    // Latency counts from when the request was due, so a stalled loop shows up (no coordinated omission).
    pending.push(
      request(`${base}/chat`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }).then(
        async (res) => {
          await res.body.text();
          out.push(performance.now() - due);
        },
      ),
    );
  }
  await Promise.all(pending);
  return out;
}

const RATE = 50;
const SECONDS = 4;
const quiet = await chatLatencies(RATE, SECONDS);
let converting = true;
let converted = 0;
const load = (async () => {
  while (converting) {
    await pool.convert(hostile(1024 * 1024)).catch(() => undefined);
    converted++;
  }
})();
const busy = await chatLatencies(RATE, SECONDS);
converting = false;
await load;
console.log(
  `chat at ${RATE} req/s, no hostile pages:       p50 ${pct(quiet, 0.5).toFixed(1)} ms  p99 ${pct(quiet, 0.99).toFixed(1)} ms (baseline)`,
);
console.log(
  `chat at ${RATE} req/s, hostile pages converting: p50 ${pct(busy, 0.5).toFixed(1)} ms  p99 ${pct(busy, 0.99).toFixed(1)} ms (${converted} pages of 1 MiB converted meanwhile)`,
);
await app.close();
await pool.close();

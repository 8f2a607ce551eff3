// bench:media: documents must neither slow other tenants nor stay in memory (DESIGN §7.3).
// A real agent host (built JavaScript) runs two assistants. Tenant A gets 20 large PDFs over
// Telegram at once (20 chats); tenant B chats over the API at a fixed rate. Printed: B's latency at
// rest (baseline) next to B's latency while A's PDFs are read, and the host's RSS idle (baseline),
// at its peak while the 20 documents are read, and after they are done.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram, makePdf } from '@berth/testkit';
import { spawnMeasuredHost } from './spawn-host.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const GW = 'bench-gateway-token-0123456789abcdef';
const TOKEN_A = '8100000001:AAmediaBenchTenantA_0123456789abcdef';
const DOCS = Number(process.env.MEDIA_DOCS ?? 20);
const PAGES = Number(process.env.MEDIA_PAGES ?? 400);
const RATE = 20;
/** Rounds after the first (a plateau stays level, a leak climbs). */
const ROUNDS = Number(process.env.MEDIA_ROUNDS ?? 2);
/** After the documents: the pool ends idle threads after 5 s. */
const SETTLE_MS = Number(process.env.MEDIA_SETTLE_MS ?? 8000);
const LATER_MS = Number(process.env.MEDIA_LATER_MS ?? 30_000);
/** How long a round of documents may take (a loaded machine reads slowly). */
const WAIT_MS = Number(process.env.MEDIA_WAIT_S ?? 300) * 1000;
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

const tg = await new FakeTelegram().start();
tg.addBot(TOKEN_A);
const provider = await new FakeModelProvider().start();
const { child, url } = await spawnMeasuredHost('media', ADMIN, tg.url);
const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // ended meanwhile
  }
};
/** The host, with any child processes it runs (document readers are threads: none today). */
const rss = () => {
  const kids = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  return rssOf(child.pid!) + kids.reduce((n, k) => n + rssOf(Number(k)), 0);
};
/** The host's resident memory by kind of mapping (MEDIA_SMAPS=1): where a residue after the documents sits. */
const smaps = () => {
  const out = new Map<string, number>();
  let key = '';
  for (const line of readFileSync(`/proc/${child.pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const kb = (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 1024;
      key =
        head[3] ||
        (kb >= 1024
          ? `anon ${Math.round(kb / 1024)} MB mapping`
          : process.env.MEDIA_SMAPS === 'sizes'
            ? `anon ${kb} kB`
            : 'anon < 1 MB mappings');
      if (key.includes('/')) key = 'files';
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out.set(key, (out.get(key) ?? 0) + Number(rss[1]) / 1024);
  }
  return out;
};
const put = (name: string, body: object) =>
  request(`${url}/agents/${name}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.body.json());
const stats = (reset = false) =>
  request(`${url}/stats${reset ? '?reset=true' : ''}`, { headers: { authorization: `Bearer ${ADMIN}` } }).then(
    (r) =>
      r.body.json() as Promise<{
        rss: number;
        heapUsed: number;
        heapTotal: number;
        external: number;
        eventLoopDelayMs: { p50: number; p99: number; max: number };
      }>,
  );
const model = {
  provider: 'fakeai',
  baseUrl: provider.url,
  modelId: 'fake-model-1',
  apiKey: 'sk-test-model-key-0123456789abcdef',
};

async function chatLatencies(seconds: number | (() => boolean)): Promise<number[]> {
  const out: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  const more = typeof seconds === 'number' ? (i: number) => i < RATE * seconds : () => seconds();
  for (let i = 0; more(i); i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    // From when the request was due: a stalled host shows up (no coordinated omission).
    pending.push(
      request(`${url}/agents/tenant-b/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${GW}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hello' }] }),
      }).then(async (res) => {
        await res.body.text();
        out.push(performance.now() - due);
      }),
    );
  }
  await Promise.all(pending);
  return out;
}

try {
  await put('tenant-a', { gatewayToken: `${GW}-a`, model, telegram: { botToken: TOKEN_A } });
  await put('tenant-b', { gatewayToken: GW, model });
  // Warm both paths once (TypeBox, undici, grammY, a document thread), then let the pool go idle.
  await chatLatencies(1);
  tg.userSends(TOKEN_A, 1, { document: tg.document(TOKEN_A, makePdf(['warm']), 'warm.pdf', 'application/pdf') });
  await tg.waitForSent((m) => m.chat_id === 1, 30_000);
  await sleep(8000);
  const idle = rss();
  const idleMaps = smaps();
  const idleStats = await stats();
  const idleHeap = idleStats.heapUsed;
  await stats(true);
  const rest = await chatLatencies(4);
  const restLoop = (await stats(true)).eventLoopDelayMs;

  // 20 large PDFs: PAGES pages of about 3 KB of text each.
  const line = 'Quarterly figures and their commentary, repeated to make a long page of text. ';
  const pdfs = Array.from({ length: DOCS }, (_, i) =>
    makePdf(Array.from({ length: PAGES }, (_, p) => `Doc ${i} page ${p}: ${line.repeat(40)}`)),
  );
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
  }, 50);
  const sentBefore = tg.sent.length;
  const t0 = performance.now();
  pdfs.forEach((pdf, i) =>
    tg.userSends(TOKEN_A, 100 + i, { document: tg.document(TOKEN_A, pdf, `report-${i}.pdf`, 'application/pdf') }),
  );
  const answered = () =>
    new Set(
      tg.sent
        .slice(sentBefore)
        .filter((m) => m.text.startsWith('You said:'))
        .map((m) => m.chat_id),
    ).size;
  const busy = await chatLatencies(() => answered() < DOCS && performance.now() - t0 < WAIT_MS);
  const allMs = performance.now() - t0;
  const busyLoop = (await stats()).eventLoopDelayMs;
  const answeredFirst = answered();
  clearInterval(sampler);
  await sleep(SETTLE_MS);
  const after = rss();
  const afterMaps = smaps();
  const afterStats = await stats();
  // And later: what the allocator and V8's memory reducer give back on their own, given time.
  await sleep(LATER_MS - SETTLE_MS);
  const later = rss();
  const laterMaps = smaps();
  const afterHeap = afterStats.heapUsed;
  // Again, twice: a plateau (allocator arenas kept for reuse) stays level, a leak would climb.
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = tg.sent.length;
    pdfs.forEach((pdf, i) =>
      tg.userSends(TOKEN_A, 200 + r * 100 + i, {
        document: tg.document(TOKEN_A, pdf, `again-${i}.pdf`, 'application/pdf'),
      }),
    );
    const end = performance.now() + WAIT_MS;
    while (
      new Set(
        tg.sent
          .slice(before)
          .filter((m) => m.text.startsWith('You said:'))
          .map((m) => m.chat_id),
      ).size < DOCS &&
      performance.now() < end
    )
      await sleep(100);
    await sleep(SETTLE_MS);
    rounds.push(rss());
  }

  const size = pdfs.reduce((n, p) => n + p.length, 0) / DOCS / MB;
  console.log(
    `${DOCS} PDFs of ${PAGES} pages (${size.toFixed(1)} MB each) read and answered in ${(allMs / 1000).toFixed(1)} s (${answeredFirst} answered)`,
  );
  console.log(
    `tenant B chat at ${RATE} req/s, at rest:          p50 ${pct(rest, 0.5).toFixed(1)} ms  p99 ${pct(rest, 0.99).toFixed(1)} ms (baseline)`,
  );
  console.log(
    `tenant B chat while A's ${DOCS} PDFs are read:  p50 ${pct(busy, 0.5).toFixed(1)} ms  p99 ${pct(busy, 0.99).toFixed(1)} ms (${busy.length} requests)`,
  );
  console.log(
    `host event loop delay, at rest:                p99 ${restLoop.p99} ms  max ${restLoop.max} ms (baseline)`,
  );
  console.log(`host event loop delay while the PDFs are read:  p99 ${busyLoop.p99} ms  max ${busyLoop.max} ms`);
  console.log(
    `agent host RSS idle ${(idle / MB).toFixed(1)} MB (baseline), peak ${(peak / MB).toFixed(1)} MB, ${SETTLE_MS / 1000} s after ${(after / MB).toFixed(1)} MB, ${LATER_MS / 1000} s after ${(later / MB).toFixed(1)} MB`,
  );
  console.log(
    `agent host RSS ${SETTLE_MS / 1000} s after each of ${ROUNDS} more rounds of ${DOCS} PDFs: ${rounds.map((r) => `${(r / MB).toFixed(1)} MB`).join(', ')}`,
  );
  console.log(
    `agent host JS heap idle ${(idleHeap / MB).toFixed(1)} MB (baseline), ${SETTLE_MS / 1000} s after ${(afterHeap / MB).toFixed(1)} MB`,
  );
  console.log(
    `agent host V8 heap committed idle ${(idleStats.heapTotal / MB).toFixed(1)} MB, after ${(afterStats.heapTotal / MB).toFixed(1)} MB; external memory idle ${(idleStats.external / MB).toFixed(1)} MB, after ${(afterStats.external / MB).toFixed(1)} MB`,
  );
  if (process.env.MEDIA_SMAPS)
    for (const [k, v] of afterMaps)
      if (Math.abs(v - (idleMaps.get(k) ?? 0)) >= 0.5 || v >= 5)
        console.log(
          `  RSS in ${k}: idle ${(idleMaps.get(k) ?? 0).toFixed(1)} MB, after ${v.toFixed(1)} MB, later ${(laterMaps.get(k) ?? 0).toFixed(1)} MB`,
        );
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ name: 'media', restP50: pct(rest, 0.5), restP99: pct(rest, 0.99), busyP50: pct(busy, 0.5), busyP99: pct(busy, 0.99), idleRss: idle, peakRss: peak, afterRss: after, laterRss: later, roundsRss: rounds })}\n`,
  );
} finally {
  child.kill('SIGTERM');
  await tg.stop();
  await provider.stop();
}

// bench:document-burst (issue 57 R3, R4): one user of a bot sends 20 slow PDFs at once. Two real
// agent hosts (built JavaScript) run side by side from the same start: the burst host gets the
// PDFs, the resting host only the same warm-up, so what the burst leaves behind is read against a
// host that lived through the same minutes. Printed: RSS of both at rest, at the burst host's
// peak and a minute after the last PDF was answered; and how long another user's words waited
// for their answer while the PDFs were read.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram, makePdf, pdfOf } from '@berth/testkit';
import { scratchDir } from '@berth/testkit/scratch-dir';
import { spawnHost } from './spawn-host.js';

const ADMIN = 'bench-admin-token-0123456789abcdef';
const BURST_TOKEN = '8100000011:AAdocumentBurstHost_0123456789abcdef';
const REST_TOKEN = '8100000012:AAdocumentRestHost_0123456789abcdefg';
const DOCS = Number(process.env.BURST_DOCS ?? 20);
/** Pages of ~OPS empty text operators each: slow to read, little text (so every page is read). */
const PAGES = Number(process.env.BURST_PAGES ?? 100);
const OPS = Number(process.env.BURST_OPS ?? 3000);
const AFTER_MS = Number(process.env.BURST_AFTER_S ?? 60) * 1000;
/** How long the burst may take (a loaded machine reads slowly). */
const WAIT_MS = Number(process.env.BURST_WAIT_S ?? 240) * 1000;
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** A PDF whose pages cost the reader time, not text: a long run of empty strings shown. */
function slowPdf(n: number): Buffer {
  const objs = ['', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids: number[] = [];
  for (let p = 0; p < PAGES; p++) {
    const stream = `BT /F1 12 Tf 72 720 Td (Report ${n} page ${p}) Tj ${'1 0 Td () Tj '.repeat(OPS)}ET`;
    objs.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    objs.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objs.length} 0 R >>`,
    );
    kids.push(objs.length);
  }
  objs[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objs[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return pdfOf(objs);
}

const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
};

const tg = await new FakeTelegram().start();
tg.addBot(BURST_TOKEN);
tg.addBot(REST_TOKEN);
const provider = await new FakeModelProvider().start();
const model = {
  provider: 'fakeai',
  baseUrl: provider.url,
  modelId: 'fake-model-1',
  apiKey: 'sk-test-model-key-0123456789abcdef',
};
// As the control plane starts hosts (packages/server/src/workers/host-memory.ts).
const env = (name: string) => ({
  ADMIN_TOKEN: ADMIN,
  DATA_DIR: scratchDir(`berth-burst-${name}-`),
  TELEGRAM_API_ROOT: tg.url,
  LOG_LEVEL: 'warn',
  MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
});
const burst = await spawnHost(env('burst'));
const resting = await spawnHost(env('rest'));
const hosts = [
  { ...burst, token: BURST_TOKEN },
  { ...resting, token: REST_TOKEN },
];

try {
  for (const h of hosts)
    await request(`${h.url}/agents/bot`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        gatewayToken: 'bench-gateway-token-0123456789abcdef',
        model,
        telegram: { botToken: h.token },
      }),
    }).then((r) => r.body.dump());
  // The same warm-up for both: words, and one small PDF (a document thread, pdf.js loaded once).
  for (const h of hosts) {
    tg.userSends(h.token, 1, { text: 'warm' });
    tg.userSends(h.token, 2, { document: tg.document(h.token, makePdf(['warm']), 'warm.pdf', 'application/pdf') });
  }
  for (const chat of [1, 2]) await tg.waitForSent((m) => m.chat_id === chat && m.text.startsWith('You said:'), 30_000);
  while (tg.sent.filter((m) => m.text.startsWith('You said:')).length < 4) await sleep(100);
  await sleep(8000); // the pool ends idle threads after 5 s
  const rest = hosts.map((h) => rssOf(h.child.pid!));

  const pdfs = Array.from({ length: DOCS }, (_, i) => slowPdf(i));
  const peak = [...rest];
  const sampler = setInterval(() => {
    hosts.forEach((h, i) => {
      peak[i] = Math.max(peak[i]!, rssOf(h.child.pid!));
    });
  }, 50);
  const t0 = performance.now();
  pdfs.forEach((pdf, i) =>
    tg.userSends(BURST_TOKEN, 10, {
      document: tg.document(BURST_TOKEN, pdf, `report-${i}.pdf`, 'application/pdf'),
    }),
  );
  const toBurster = () => tg.sentTo(10).filter((m) => m.text.startsWith('You said:') || m.text.includes('read'));
  // Another user of the same bot writes every 2 s while the PDFs are read.
  const waits: number[] = [];
  for (let i = 0; toBurster().length < DOCS && performance.now() - t0 < WAIT_MS; i++) {
    const sent = performance.now();
    tg.userSends(BURST_TOKEN, 11, { text: `still there? ${i}` });
    await tg.waitForSent((m) => m.chat_id === 11 && m.text === `You said: still there? ${i}`, WAIT_MS);
    waits.push(performance.now() - sent);
    await sleep(2000);
  }
  while (toBurster().length < DOCS && performance.now() - t0 < WAIT_MS) await sleep(100);
  const burstMs = performance.now() - t0;
  const answered = tg.sentTo(10).filter((m) => m.text.startsWith('You said:')).length;
  await sleep(AFTER_MS);
  clearInterval(sampler);
  const after = hosts.map((h) => rssOf(h.child.pid!));

  const size = pdfs.reduce((n, p) => n + p.length, 0) / DOCS;
  console.log(
    `${DOCS} slow PDFs (${PAGES} pages, ${mb(size)} each) from one user: ${answered} answered in ${(burstMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `another user's words meanwhile: ${waits.length} answered, longest wait ${Math.max(...waits).toFixed(0)} ms, median ${[...waits].sort((a, b) => a - b)[Math.floor(waits.length / 2)]!.toFixed(0)} ms`,
  );
  console.log(`                 at rest    peak       ${AFTER_MS / 1000} s after the last answer`);
  console.log(`burst host RSS   ${mb(rest[0]!).padEnd(10)} ${mb(peak[0]!).padEnd(10)} ${mb(after[0]!)}`);
  console.log(`resting host RSS ${mb(rest[1]!).padEnd(10)} ${mb(peak[1]!).padEnd(10)} ${mb(after[1]!)}`);
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ name: 'document-burst', answered, burstMs, waits, rest, peak, after })}\n`,
  );
} finally {
  for (const h of hosts) h.child.kill('SIGTERM');
  await tg.stop();
  await provider.stop();
}

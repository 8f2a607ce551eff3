// bench:streams — concurrent SSE streams through the control plane and the memory each costs.
// Opens K streams (a chunk a second each) through the proxy, checks every one is flowing, and reads
// the control plane's RSS next to its idle RSS in the same run.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Client } from 'undici';
import { startPair, rssMb, table } from './processes.js';
import { report } from './load.js';

const SIZES = (process.env.STREAM_COUNTS ?? '1000,5000,9000,10000').split(',').map(Number);
const body = JSON.stringify({
  model: 'assistant-agent',
  messages: [{ role: 'user', content: 'stream' }],
  stream: true,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The control plane holds two sockets per stream (client and worker): its open-file limit caps N. */
function maxOpenFiles(pid: number): number {
  const m = /Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

// A full GC before each reading (SIGUSR2 to the control plane, bench/control-plane.ts), so the
// figures are live memory rather than garbage not yet collected.
process.env.BENCH_NODE_FLAGS = `${process.env.BENCH_NODE_FLAGS ?? ''} --expose-gc`.trim();
const { worker, cp, info } = await startPair();
const memoryLines = createInterface({ input: cp.child.stdio[3] as NodeJS.ReadableStream });
/** RSS and live heap (MB) of the control plane after a full GC. */
async function memory(): Promise<{ rss: number; heap: number }> {
  const line = new Promise<string>((ok) => {
    const on = (l: string) => {
      if (!l.startsWith('memory ')) return;
      memoryLines.off('line', on);
      ok(l.slice(7));
    };
    memoryLines.on('line', on);
  });
  cp.child.kill('SIGUSR2');
  const m = JSON.parse(await line) as { heapUsed: number };
  await sleep(200);
  return { rss: rssMb(cp.child.pid!), heap: m.heapUsed / 2 ** 20 };
}
const open: Array<{ client: Client; chunks: number }> = [];
try {
  await sleep(1000);
  const idle = await memory();
  const rows: string[][] = [['0 (baseline)', idle.rss.toFixed(1), '—', idle.heap.toFixed(1), '—', '—']];
  const fdLimit = maxOpenFiles(cp.child.pid!);
  for (const k of SIZES) {
    if (2 * k + 100 > fdLimit) {
      rows.push([String(k), '—', '—', '—', '—', `not run: needs ${2 * k + 100} open files, the limit is ${fdLimit}`]);
      continue;
    }
    process.stderr.write(`opening streams up to ${k}…\n`);
    while (open.length < k) {
      const client = new Client(info.url);
      const s = { client, chunks: 0 };
      open.push(s);
      client
        .request({
          method: 'POST',
          path: `/api/v1/assistants/${info.deploymentId}/chat/completions`,
          headers: { authorization: `Bearer ${info.key}`, 'content-type': 'application/json' },
          body,
        })
        .then(async (res) => {
          for await (const _ of res.body) s.chunks++;
        })
        .catch(() => {});
    }
    // Memory counts only once every stream is open end to end (its first chunk arrived): on a
    // loaded machine opening thousands takes a while, and a stream not yet open costs nothing.
    const deadline = Date.now() + 120_000;
    while (open.some((s) => s.chunks === 0) && Date.now() < deadline) await sleep(500);
    const started = open.filter((s) => s.chunks > 0).length;
    await sleep(1000);
    const m = await memory();
    const before = open.map((s) => s.chunks);
    await sleep(3000);
    const flowing = open.filter((s, i) => s.chunks > before[i]!).length;
    rows.push([
      String(k),
      m.rss.toFixed(1),
      (((m.rss - idle.rss) * 1024) / k).toFixed(1),
      m.heap.toFixed(1),
      (((m.heap - idle.heap) * 1024) / k).toFixed(1),
      `${started}/${k} open, ${flowing}/${k} flowing`,
    ]);
  }
  console.log(
    '\nbench:streams (SSE through the control plane, one chunk a second per stream; RSS of the control plane process)\n',
  );
  table(
    [
      'streams',
      'RSS MB',
      'KB per stream (RSS − baseline) / N',
      'live heap MB',
      'KB per stream (heap − baseline) / N',
      'streams open / still flowing',
    ],
    rows,
  );
  console.log('\ngoal: 10,000 concurrent streams at no more than 15 KB each');
  report('streams', {
    rows: rows.map(([streams, rssMb, kbPerStream, heapMb, heapKbPerStream, flowing]) => ({
      streams,
      rssMb,
      kbPerStream,
      heapMb,
      heapKbPerStream,
      flowing,
    })),
  });
} finally {
  for (const s of open) void s.client.destroy();
  cp.child.kill('SIGKILL');
  worker.child.kill('SIGKILL');
}

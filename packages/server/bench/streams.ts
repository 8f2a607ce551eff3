// bench:streams — concurrent SSE streams through the control plane and the memory each costs.
// Opens K streams (a chunk a second each) through the proxy, checks every one is flowing, and reads
// the control plane's RSS next to its idle RSS in the same run.
import { readFileSync } from 'node:fs';
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

const { worker, cp, info } = await startPair();
const open: Array<{ client: Client; chunks: number }> = [];
try {
  await sleep(1000);
  const idle = rssMb(cp.child.pid!);
  const rows: string[][] = [['0 (baseline)', idle.toFixed(1), '—', '—']];
  const fdLimit = maxOpenFiles(cp.child.pid!);
  for (const k of SIZES) {
    if (2 * k + 100 > fdLimit) {
      rows.push([String(k), '—', '—', `not run: needs ${2 * k + 100} open files, the limit is ${fdLimit}`]);
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
    await sleep(3000);
    const before = open.map((s) => s.chunks);
    await sleep(2500);
    const flowing = open.filter((s, i) => s.chunks > before[i]!).length;
    const rss = rssMb(cp.child.pid!);
    rows.push([String(k), rss.toFixed(1), (((rss - idle) * 1024) / k).toFixed(1), `${flowing}/${k}`]);
  }
  console.log(
    '\nbench:streams (SSE through the control plane, one chunk a second per stream; RSS of the control plane process)\n',
  );
  table(['streams', 'RSS MB', 'KB per stream (RSS − baseline) / N', 'streams still flowing'], rows);
  console.log('\ngoal: 10,000 concurrent streams at no more than 15 KB each');
  report('streams', {
    rows: rows.map(([streams, rssMb, kbPerStream, flowing]) => ({ streams, rssMb, kbPerStream, flowing })),
  });
} finally {
  for (const s of open) void s.client.destroy();
  cp.child.kill('SIGKILL');
  worker.child.kill('SIGKILL');
}

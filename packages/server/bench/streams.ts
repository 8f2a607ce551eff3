// bench:streams — concurrent SSE streams through the control plane and the memory each costs, next
// to the same streams through a bare forwarding process (bare-hop.ts, a plain pass-through of the
// worker's SSE) in the same run. Opens K streams (a chunk a second each) through one path, checks
// every one is flowing, reads that process's RSS and live heap next to its own idle figures, then
// closes them and does the same through the other path.
import { readFileSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { Client } from 'undici';
import { report } from './load.js';
import { rssMb, start, startPair, table } from './processes.js';

// Two sizes by default (under 2 minutes on 2 cores); STREAM_COUNTS=1000,5000,9000 for the old table.
const SIZES = (process.env.STREAM_COUNTS ?? '2000,6000').split(',').map(Number);
const STEP = Number(process.env.STREAM_STEP ?? 500);
const t0 = Date.now();
const GOAL = 1.1;
const body = JSON.stringify({
  model: 'assistant-agent',
  messages: [{ role: 'user', content: 'stream' }],
  stream: true,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each path's process holds two sockets per stream (client and worker): its open-file limit caps N. */
function maxOpenFiles(pid: number): number {
  const m = /Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return m ? Number(m[1]) : Number.POSITIVE_INFINITY;
}

// A full GC before each reading (SIGUSR2, answerMemoryReadings in processes.ts), so the figures are
// live memory rather than garbage not yet collected.
process.env.BENCH_NODE_FLAGS = `${process.env.BENCH_NODE_FLAGS ?? ''} --expose-gc`.trim();
const { worker, cp, info } = await startPair();
const hop = await start(
  'bare-hop.ts',
  [`${info.workerUrl.replace(/\/+$/, '')}/v1`],
  (l) => /listening on (\S+)/.exec(l)?.[1],
  ['--expose-gc'],
);

interface Path {
  name: string;
  pid: number;
  lines: Interface;
  origin: string;
  path: string;
  authorization: string;
}
const paths: Path[] = [
  {
    name: 'control plane',
    pid: cp.child.pid!,
    lines: createInterface({ input: cp.child.stdio[3] as NodeJS.ReadableStream }),
    origin: info.url,
    path: `/api/v1/assistants/${info.deploymentId}/chat/completions`,
    authorization: `Bearer ${info.key}`,
  },
  {
    name: 'bare forwarding process',
    pid: hop.child.pid!,
    lines: createInterface({ input: hop.child.stdio[3] as NodeJS.ReadableStream }),
    origin: hop.value,
    path: '/v1/chat/completions',
    authorization: `Bearer ${info.gatewayToken}`,
  },
];

/** RSS and live heap (MB) of the path's process after a full GC. */
async function memory(p: Path): Promise<{ rss: number; heap: number }> {
  const line = new Promise<string>((ok) => {
    const on = (l: string) => {
      if (!l.startsWith('memory ')) return;
      p.lines.off('line', on);
      ok(l.slice(7));
    };
    p.lines.on('line', on);
  });
  process.kill(p.pid, 'SIGUSR2');
  const m = JSON.parse(await line) as { heapUsed: number };
  await sleep(200);
  return { rss: rssMb(p.pid), heap: m.heapUsed / 2 ** 20 };
}

interface Reading {
  streams: number;
  rssMb: number;
  kbPerStream: number;
  heapMb: number;
  heapKbPerStream: number;
  flowing: string;
}

/** Opens streams through `p` up to each of SIZES in turn, reads its memory at each, then closes them. */
async function hold(p: Path): Promise<{ idle: { rss: number; heap: number }; readings: Array<Reading | string> }> {
  const open: Array<{ client: Client; chunks: number; ended: boolean }> = [];
  const idle = await memory(p);
  const readings: Array<Reading | string> = [];
  const fdLimit = maxOpenFiles(p.pid);
  try {
    for (const k of SIZES) {
      if (2 * k + 100 > fdLimit) {
        readings.push(`not run: needs ${2 * k + 100} open files, the limit is ${fdLimit}`);
        continue;
      }
      process.stderr.write(`${((Date.now() - t0) / 1000).toFixed(0)} s: ${p.name}: opening streams up to ${k}…\n`);
      // In steps of STEP, each open end to end (its first chunk arrived) before the next: thousands
      // of connects at once overflow the listen backlogs on a loaded machine, and a stream refused
      // there is never open. A stream not yet open costs nothing, so memory is read only after.
      const deadline = Date.now() + 120_000;
      while (open.length < k) {
        for (let i = Math.min(STEP, k - open.length); i > 0; i--) {
          const client = new Client(p.origin);
          const s = { client, chunks: 0, ended: false };
          open.push(s);
          client
            .request({
              method: 'POST',
              path: p.path,
              headers: { authorization: p.authorization, 'content-type': 'application/json' },
              body,
            })
            .then(async (res) => {
              for await (const _ of res.body) s.chunks++;
            })
            .catch(() => {})
            // Refused or broken off: counted as not open, and not waited for.
            .finally(() => {
              s.ended = true;
            });
        }
        while (open.some((s) => s.chunks === 0 && !s.ended) && Date.now() < deadline) await sleep(100);
      }
      const started = open.filter((s) => s.chunks > 0 && !s.ended).length;
      await sleep(1000);
      const m = await memory(p);
      const before = open.map((s) => s.chunks);
      await sleep(3000);
      const flowing = open.filter((s, i) => s.chunks > before[i]!).length;
      readings.push({
        streams: k,
        rssMb: m.rss,
        // Divided by the streams open end to end: one that never opened holds (almost) nothing.
        kbPerStream: ((m.rss - idle.rss) * 1024) / started,
        heapMb: m.heap,
        heapKbPerStream: ((m.heap - idle.heap) * 1024) / started,
        flowing: `${started}/${k} open, ${flowing}/${k} flowing`,
      });
    }
  } finally {
    await Promise.all(open.map((s) => s.client.destroy()));
  }
  return { idle, readings };
}

try {
  await sleep(1000);
  const [c, h] = [await hold(paths[0]!), await hold(paths[1]!)];
  console.log(
    '\nbench:streams (SSE, one chunk a second per stream; through the control plane, then through a bare forwarding process, each process read after a full GC against its own idle figures)\n',
  );
  const rows: string[][] = [];
  const ratios: Array<{ streams: number; rss: number; heap: number }> = [];
  for (const [name, r] of [
    [paths[0]!.name, c],
    [paths[1]!.name, h],
  ] as const) {
    rows.push([name, '0 (baseline)', r.idle.rss.toFixed(1), '—', r.idle.heap.toFixed(1), '—', '—']);
    r.readings.forEach((x, i) =>
      rows.push(
        typeof x === 'string'
          ? [name, String(SIZES[i]), '—', '—', '—', '—', x]
          : [
              name,
              String(x.streams),
              x.rssMb.toFixed(1),
              x.kbPerStream.toFixed(1),
              x.heapMb.toFixed(1),
              x.heapKbPerStream.toFixed(1),
              x.flowing,
            ],
      ),
    );
  }
  table(
    [
      'path',
      'streams',
      'RSS MB',
      'KB per stream (RSS − baseline) / N',
      'live heap MB',
      'KB per stream (heap − baseline) / N',
      'streams open / still flowing',
    ],
    rows,
  );
  console.log('\ncontrol plane against the bare forwarding process, KB per open stream:');
  c.readings.forEach((x, i) => {
    const y = h.readings[i];
    if (typeof x === 'string' || typeof y === 'string' || !y) return;
    const rss = x.kbPerStream / y.kbPerStream;
    const heap = x.heapKbPerStream / y.heapKbPerStream;
    ratios.push({ streams: x.streams, rss, heap });
    console.log(
      `  ${x.streams} streams: RSS ${x.kbPerStream.toFixed(1)} / ${y.kbPerStream.toFixed(1)} KB = ${rss.toFixed(2)}×, live heap ${x.heapKbPerStream.toFixed(1)} / ${y.heapKbPerStream.toFixed(1)} KB = ${heap.toFixed(2)}×`,
    );
  });
  // Judged on the live heap: RSS − baseline charges a small process (the hop idles at ~75 MB RSS,
  // 10 MB heap) for the heap pages it grows into while thousands of streams open, which a control
  // plane idling at ~195 MB already holds, so the RSS ratio favours the control plane.
  const last = ratios.at(-1);
  if (last)
    console.log(
      `\ngoal: memory per open stream ≤ ${GOAL}× the hop's (live heap, at the most streams run): ${last.heap.toFixed(2)}× at ${last.streams} (${last.heap <= GOAL ? 'met' : 'not met'}; RSS ${last.rss.toFixed(2)}×)`,
    );
  report('streams', { controlPlane: c, bareHop: h, ratios, goal: last ? last.heap <= GOAL : false });
} finally {
  cp.child.kill('SIGKILL');
  hop.child.kill('SIGKILL');
  worker.child.kill('SIGKILL');
}

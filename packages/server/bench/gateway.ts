// bench:gateway — what the model gateway adds to one model call: the same request straight at
// the router (baseline) and through the gateway (credential check, safe body, reserve, forward,
// usage scan, settle in the ledger), in the same run, at a fixed request rate (open loop).
import { addedMs, type LoadResult, loadRow, ms, openLoopSideBySide, report } from './load.js';
import { start, table } from './processes.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = Number(process.env.GATEWAY_RATE ?? 500);
const KEY = 'sk-test-model-key-0123456789abcdef';

const router = await start('router.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
process.on('exit', () => router.child.kill('SIGKILL'));
const hop = await start('bare-hop.ts', [router.value], (l) => /listening on (\S+)/.exec(l)?.[1]);
process.on('exit', () => hop.child.kill('SIGKILL'));
const cp = await start('gateway-control-plane.ts', [router.value], (l) =>
  l.startsWith('{"ready":true') ? l : undefined,
);
process.on('exit', () => cp.child.kill('SIGINT'));
const info = JSON.parse(cp.value) as { url: string; credential: string };
const body = JSON.stringify({
  model: 'router/bench',
  messages: [{ role: 'user', content: 'ping' }],
  max_tokens: 16,
  stream: true,
});
const json = { 'content-type': 'application/json' };
const r = new URL(router.value);
const direct = {
  origin: r.origin,
  method: 'POST' as const,
  path: `${r.pathname}/chat/completions`,
  body,
  headers: { ...json, authorization: `Bearer ${KEY}` },
};
const gateway = {
  origin: info.url,
  method: 'POST' as const,
  path: '/gateway/v1/chat/completions',
  body,
  headers: { ...json, authorization: `Bearer ${info.credential}` },
};

// Each path answered once first, so modules loaded on a first call (the gateway's upstream client,
// the ledger's statements) are not timed; the open loop's own warm-up second covers the rest.
process.stderr.write('warming each path…\n');
await openLoopSideBySide([direct, gateway, { ...direct, origin: hop.value, path: '/v1/chat/completions' }], 20, 2);
process.stderr.write(`${RATE} req/s…\n`);
// The same call through a bare forwarding process: the floor of any extra hop on this machine.
const bare = { ...direct, origin: hop.value, path: '/v1/chat/completions' };
// Interleaved: each path at RATE, their requests alternating, so all see the same moments.
const [d, g, b] = (await openLoopSideBySide([direct, gateway, bare], RATE, SECONDS)) as [
  LoadResult,
  LoadResult,
  LoadResult,
];
console.log(
  `\nbench:gateway (streamed model call; ${RATE} req/s each, interleaved, for ${SECONDS} s; generator, router and control plane share the machine)\n`,
);
const row = (path: string, r: LoadResult, base?: LoadResult) => loadRow([path], r, [base ? addedMs(r, base) : '']);
table(
  ['path', 'req/s', 'p50 ms', 'p99 ms', 'added p50 / p99 ms', 'errors'],
  [
    row('direct to router (baseline)', d),
    row('through the model gateway', g, d),
    row('through a bare Node hop (floor)', b, d),
  ],
);
const added = g.p99 - d.p99;
console.log(`\nadded at ${RATE} req/s: p99 +${ms(added)} ms (goal: under 1 ms)`);
const floor = b.p99 - d.p99;
console.log(`same run, a bare forwarding process (any extra process hop) adds p99 +${ms(floor)} ms`);
report('gateway', {
  direct: d,
  gateway: g,
  bareHop: b,
  addedP99AtRate: added,
  bareHopAddedP99: floor,
  goal: added < 1,
});
process.exit(0);

// bench:gateway — what the model gateway adds to one model call: the same request straight at
// the router (baseline) and through the gateway (credential check, safe body, reserve, forward,
// usage scan, settle in the ledger), in the same run, at a fixed request rate (open loop). Then
// the CPU per call of the control plane's process (where the gateway runs) next to a bare
// forwarding process's, the two paths in turns as bench:proxy measures its ratio (turns.ts). Last,
// 100 and then 1,000 chats streaming at once on one provider (concurrent-streams.ts).
import { concurrentStreams, type StreamsResult } from './concurrent-streams.js';
import { addedMs, closedLoop, type LoadResult, loadRow, ms, openLoopSideBySide, report } from './load.js';
import { start, table } from './processes.js';
import { SLOW_ANSWER_MS } from './slow-answer.js';
import { inTurns, turnsRow } from './turns.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = Number(process.env.GATEWAY_RATE ?? 500);
// The CPU rows: clients in a closed loop, and turns of ROUND_SECONDS each per path (an even number,
// so each path follows the other equally often; turnOrder).
const CLIENTS = Number(process.env.GATEWAY_CLIENTS ?? 50);
const ROUNDS = Number(process.env.GATEWAY_ROUNDS ?? 8);
const ROUND_SECONDS = 1;
// The concurrent-streams rows: this many chats at once on one provider, the first the baseline.
const CHATS = (process.env.GATEWAY_CHATS ?? '100,1000')
  .split(',')
  .map(Number)
  .sort((a, b) => a - b);
const CHATS_SECONDS = Number(process.env.GATEWAY_CHATS_SECONDS ?? 12);
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

// CPU per call: user + system of the control plane's process (the gateway's listener, ledger and
// store writer all run there) over the gateway's turns, against the bare hop's process over its
// own, each divided by the calls sent in those turns. Both warmed first: the hop served only the
// open loop above, and its JIT's first seconds would otherwise count against it.
process.stderr.write(`CPU per call, ${CLIENTS} clients, ${ROUNDS} turns each…\n`);
for (const t of [bare, gateway]) await closedLoop(t, CLIENTS, 2);
const [hopTurns, gatewayTurns] = await inTurns(
  [
    { pids: [hop.child.pid!], target: bare },
    { pids: [cp.child.pid!], target: gateway },
  ],
  { rounds: ROUNDS, seconds: ROUND_SECONDS, clients: CLIENTS },
);
const h = turnsRow(hopTurns!, ROUND_SECONDS);
const c = turnsRow(gatewayTurns!, ROUND_SECONDS);
const cpuRatio = c.cpuUsPerRequest / h.cpuUsPerRequest;
console.log(
  `\nCPU per streamed call (${CLIENTS} clients, ${ROUNDS} turns of ${ROUND_SECONDS} s each after 1 s warm-up, the paths in turns; CPU of that process over its turns / calls sent)\n`,
);
table(
  ['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/call (that process)', 'of the hop', 'errors'],
  [
    loadRow(['bare forwarding process (floor)'], h, [h.cpuUsPerRequest.toFixed(0), '1.00×']),
    loadRow(['through the model gateway'], c, [c.cpuUsPerRequest.toFixed(0), `${cpuRatio.toFixed(2)}×`]),
  ],
);
console.log(
  `\ngateway CPU per call: ${c.cpuUsPerRequest.toFixed(0)} µs against the bare hop's ${h.cpuUsPerRequest.toFixed(0)} µs: ${cpuRatio.toFixed(2)}× (goal ≤ 1.5×: ${cpuRatio <= 1.5 ? 'met' : 'not met'})`,
);

// Many chats at once on one provider, each a long streamed answer (30 words at a model's pace),
// straight to the router and through the gateway, through the agent's own model client. What the
// goal judges is the gateway's p50 at the largest count against its p50 at the first.
process.stderr.write(
  `concurrent streams: ${CHATS.join(', ')} chats, each count about ${Math.round((2 * SLOW_ANSWER_MS) / 1000 + CHATS_SECONDS)} s a path…\n`,
);
const streams: { chats: number; direct: StreamsResult; gateway: StreamsResult }[] = [];
for (const chats of CHATS) {
  const at = (path: string, baseUrl: string, apiKey: string) => {
    process.stderr.write(`  ${chats} chats ${path}…\n`);
    return concurrentStreams({ baseUrl, apiKey, model: 'router/bench', chats, seconds: CHATS_SECONDS });
  };
  streams.push({
    chats,
    direct: await at('straight to the router', router.value, KEY),
    gateway: await at('through the gateway', `${info.url}/gateway/v1`, info.credential),
  });
}
console.log(
  `\nConcurrent chats on one provider (each asks, reads a ${SLOW_ANSWER_MS / 1000} s streamed answer, asks again; through the agent's model client; ${CHATS_SECONDS} s measured after every chat started)\n`,
);
const streamRow = (path: string, chats: number, r: StreamsResult) => [
  path,
  String(chats),
  String(r.openMedian),
  String(r.calls),
  ms(r.firstTextP50),
  ms(r.firstTextP99),
  ms(r.wholeP50),
  String(r.errors),
];
table(
  ['path', 'chats', 'in flight (median)', 'calls', 'first text p50 ms', 'p99 ms', 'whole answer p50 ms', 'errors'],
  streams.flatMap((s) => [
    streamRow('direct to router', s.chats, s.direct),
    streamRow('through the model gateway', s.chats, s.gateway),
  ]),
);
const few = streams[0]!;
const many = streams.at(-1)!;
const addedFirst = many.gateway.firstTextP50 - few.gateway.firstTextP50;
const addedWhole = many.gateway.wholeP50 - few.gateway.wholeP50;
const signed = (x: number) => `${x >= 0 ? '+' : ''}${ms(x)}`;
// A failed call is no faster answer: any error, and the goal is not met whatever the p50s say.
const failed = few.gateway.errors + many.gateway.errors;
const streamsMet = streams.length > 1 && failed === 0 && Math.max(addedFirst, addedWhole) <= 100;
console.log(
  `\n${many.chats} chats on one provider against ${few.chats}, through the gateway: first text p50 ${signed(addedFirst)} ms, whole answer p50 ${signed(addedWhole)} ms, ${failed} failed calls (goal ≤ 100 ms, none failed: ${streamsMet ? 'met' : 'not met'})`,
);
report('gateway', {
  direct: d,
  gateway: g,
  bareHop: b,
  addedP99AtRate: added,
  bareHopAddedP99: floor,
  goal: added < 1,
  cpu: { clients: CLIENTS, hop: h, gateway: c, ratio: cpuRatio, goal: cpuRatio <= 1.5 },
  concurrentStreams: { rows: streams, addedFirstTextP50: addedFirst, addedWholeP50: addedWhole, goal: streamsMet },
});
process.exit(0);

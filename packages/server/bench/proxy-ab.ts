// bench:proxy-ab — the control plane built in this checkout against the one built in another
// (BENCH_AB_OTHER, e.g. a clone of main at an earlier commit, `npm ci && npm run build` run there),
// on the chat with usage at one client, next to the bare forwarding process of bench:proxy. At one
// client a chat is a chain of three processes, and the machine's load moves its rate by ±10 %
// within seconds: two builds measured one after the other cannot show a change of a few
// microseconds. Here the three paths take one-second turns against the same worker (turns.ts), and
// CPU is read per process per turn. Even so, two copies of one build read up to 14 % apart in one
// run (decision 0027, round 25): one run shows only a change larger than that; judge a smaller one
// by several runs, alternated.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { closedLoop, type Target } from './load.js';
import { start, table } from './processes.js';
import { inTurns, usPerChat, type Turns } from './turns.js';

const other = process.env.BENCH_AB_OTHER;
const otherScript = other && join(other, 'packages/server/bench/control-plane.ts');
if (!otherScript || !existsSync(join(other!, 'packages/server/dist'))) {
  console.error(
    'bench:proxy-ab compares with another checkout: set BENCH_AB_OTHER to a clone of this repository in which `npm ci && npm run build` has run.',
  );
  process.exit(2);
}
const ROUNDS = Number(process.env.PROXY_AB_ROUNDS ?? 12);
const CLIENTS = Number(process.env.PROXY_AB_CLIENTS ?? 1);

const worker = await start('instant-worker.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
const here = await start('control-plane.ts', [worker.value], (l) => (l.startsWith('{"ready":true') ? l : undefined));
// The other checkout's control plane, with its own modules (its node_modules, its dist).
const there = spawn(process.execPath, ['--import', 'tsx', otherScript, worker.value], {
  cwd: other,
  stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
});
const thereLine = await new Promise<string>((ok, fail) => {
  there.once('exit', (code) => fail(new Error(`the control plane in ${other} exited with ${code}`)));
  createInterface({ input: there.stdio[3] as NodeJS.ReadableStream }).on(
    'line',
    (l) => l.startsWith('{"ready":true') && ok(l),
  );
});
const hop = await start('bare-hop.ts', [`${worker.value}/v1`], (l) => /listening on (\S+)/.exec(l)?.[1]);
process.on('exit', () => {
  for (const c of [here.child, there, hop.child, worker.child]) c.kill('SIGKILL');
});

const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'ping with usage' }] });
const json = { 'content-type': 'application/json' };
function chat(readyLine: string): Target {
  const i = JSON.parse(readyLine) as { url: string; key: string; deploymentId: string };
  return {
    origin: i.url,
    method: 'POST',
    path: `/api/v1/assistants/${i.deploymentId}/chat/completions`,
    body,
    headers: { ...json, authorization: `Bearer ${i.key}` },
  };
}
const gatewayToken = (JSON.parse(here.value) as { gatewayToken: string }).gatewayToken;
const paths = [
  {
    name: 'bare forwarding process (floor)',
    pid: hop.child.pid!,
    target: {
      origin: hop.value,
      method: 'POST',
      path: '/v1/chat/completions',
      body,
      headers: { ...json, authorization: `Bearer ${gatewayToken}` },
    } as Target,
  },
  { name: 'control plane, this checkout', pid: here.child.pid!, target: chat(here.value) },
  { name: `control plane, ${other}`, pid: there.pid!, target: chat(thereLine) },
];

process.stderr.write('warming the three paths…\n');
for (const p of paths) await closedLoop(p.target, CLIENTS, 2);
// The chain: the load generator (this process), the path's process, the worker.
const sums = await inTurns(
  paths.map((p) => ({ target: p.target, pids: [process.pid, p.pid, worker.child.pid!] })),
  { rounds: ROUNDS, seconds: 1, clients: CLIENTS, onRound: (r) => process.stderr.write(`round ${r + 1}/${ROUNDS}\r`) },
);
const floor = sums[0]!;
const own = (t: Turns) => usPerChat(t.cpuMs[1]!, t);
const chain = (t: Turns) => usPerChat(t.cpuMs[0]! + t.cpuMs[1]! + t.cpuMs[2]!, t);
console.log(
  `\nbench:proxy-ab (chat with usage, ${CLIENTS} client${CLIENTS === 1 ? '' : 's'}, ${ROUNDS} turns of 1 s per path)\n`,
);
table(
  ['path', 'req/s', 'CPU µs/chat (that process)', 'CPU µs/chat (client + it + worker)', 'req/s of the floor'],
  paths.map((p, i) => {
    const s = sums[i]!;
    return [
      p.name,
      (s.answered / ROUNDS).toFixed(0),
      own(s).toFixed(1),
      chain(s).toFixed(1),
      `${((100 * s.answered) / floor.answered).toFixed(1)} %`,
    ];
  }),
);
const [h, t] = [sums[1]!, sums[2]!];
console.log(
  `\nthis checkout − the other: ${(own(h) - own(t)).toFixed(1)} µs of control-plane CPU a chat, ${((h.answered / t.answered - 1) * 100).toFixed(1)} % req/s`,
);
process.exit(0);

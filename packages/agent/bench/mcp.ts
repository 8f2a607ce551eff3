// bench:mcp: what an owner's MCP tool call adds to a turn, next to a built-in tool's, in one run.
// An agent host in this process (its real admin and chat routes), the fake model provider on
// loopback scripting one tool call per turn, and the reference MCP server from the npm registry
// (@modelcontextprotocol/server-everything, streamableHttp, its own process, held to loopback).
// Turns with no tool, with `calculator` and with `mcp_ev_echo` are interleaved; each tool's added
// latency is its turns' median minus the no-tool turns' median.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { request } from 'undici';
import { FakeModelProvider } from '@berth/testkit';
import { startEverythingServer } from '@berth/testkit/mcp';
import { AgentHost } from '../src/runtime/host.js';
import { hostApp } from '../src/runtime/server.js';
import { SessionStore } from '../src/storage/sessions.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const ADMIN = 'bench-mcp-admin-token-0123456789';
const GW = 'bench-mcp-gateway-token-0123456789';
const KEY = 'sk-test-model-key-0123456789abcdef';

const dir = mkdtempSync(join(tmpdir(), 'berth-bench-mcp-'));
const store = new SessionStore(dir);
const log = pino({ level: 'silent' });
const host = new AgentHost(store, log);
const app = hostApp(host, log, ADMIN, { allowInsecureMcp: true });
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const provider = await new FakeModelProvider().start();
const everything = await startEverythingServer();

const admin = (method: 'PUT', path: string, body: unknown) =>
  request(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.body.json() as Promise<any>);

await admin('PUT', '/agents/bench', {
  gatewayToken: GW,
  model: { provider: 'fakeai', baseUrl: provider.url, modelId: 'fake-model-1', apiKey: KEY },
});
const view = await admin('PUT', '/agents/bench/mcp-servers', [
  { name: 'ev', url: everything.url, enabledTools: ['echo'] },
]);
if (view.servers?.[0]?.status !== 'connected')
  throw new Error(`the MCP server did not connect: ${JSON.stringify(view)}`);

type Kind = 'none' | 'builtin' | 'mcp';
async function turn(kind: Kind): Promise<number> {
  if (kind === 'builtin')
    provider.queue.push({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] });
  if (kind === 'mcp') provider.queue.push({ toolCalls: [{ name: 'mcp_ev_echo', arguments: { message: 'hi' } }] });
  provider.queue.push({ content: 'ok' });
  const t0 = performance.now();
  const res = await request(`${base}/agents/bench/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GW}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'go' }] }),
  });
  await res.body.text();
  if (res.statusCode !== 200) throw new Error(`chat answered ${res.statusCode}`);
  return performance.now() - t0;
}

const times: Record<Kind, number[]> = { none: [], builtin: [], mcp: [] };
for (let i = 0; i < 20; i++) for (const k of ['none', 'builtin', 'mcp'] as Kind[]) await turn(k); // warm-up
for (let i = 0; i < ROUNDS; i++) for (const k of ['none', 'builtin', 'mcp'] as Kind[]) times[k].push(await turn(k));

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const f = (n: number) => n.toFixed(2).padStart(7);
console.log(`bench:mcp — ${ROUNDS} interleaved turns each (one tool call, then the answer; fake model on loopback)`);
console.log('                          p50 ms   p95 ms   added p50 ms');
for (const [k, label] of [
  ['none', 'no tool (baseline)     '],
  ['builtin', 'built-in calculator    '],
  ['mcp', 'MCP echo (everything)  '],
] as Array<[Kind, string]>)
  console.log(
    `  ${label} ${f(pct(times[k], 0.5))}  ${f(pct(times[k], 0.95))}  ${k === 'none' ? '      —' : f(pct(times[k], 0.5) - pct(times.none, 0.5))}`,
  );

const p50 = (k: Kind) => pct(times[k], 0.5);
process.stdout.write(
  `BENCH_RESULT ${JSON.stringify({ name: 'mcp', noneP50: p50('none'), builtinAddedP50: p50('builtin') - p50('none'), mcpAddedP50: p50('mcp') - p50('none'), mcpP95: pct(times.mcp, 0.95) })}\n`,
);

await app.close();
await host.close();
store.close();
await provider.stop();
await everything.stop();
rmSync(dir, { recursive: true, force: true });

// Probe: sequential calls direct vs through the gateway (not a benchmark; for finding waits).
import { Pool } from 'undici';
import { start } from './processes.js';
const router = await start('router.ts', [], (l) => /listening on (\S+)/.exec(l)?.[1]);
process.on('exit', () => router.child.kill('SIGKILL'));
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
const r = new URL(router.value);
const targets = {
  direct: {
    pool: new Pool(r.origin),
    path: `${r.pathname}/chat/completions`,
    auth: 'Bearer sk-test-model-key-0123456789abcdef',
  },
  directSafe: {
    pool: new Pool(r.origin),
    path: `${r.pathname}/chat/completions`,
    auth: 'Bearer sk-test-model-key-0123456789abcdef',
    body: JSON.stringify({
      messages: [{ role: 'user', content: 'ping' }],
      stream: true,
      max_tokens: 16,
      model: 'router/bench',
      n: 1,
      stream_options: { include_usage: true },
    }),
  },
  gateway: { pool: new Pool(info.url), path: '/gateway/v1/chat/completions', auth: `Bearer ${info.credential}` },
};
for (const round of Array.from({ length: Number(process.env.ROUNDS ?? 2) }, (_, i) => i + 1))
  for (const [name, t] of Object.entries(targets)) {
    const lat: number[] = [];
    const head: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t0 = performance.now();
      const res = await t.pool.request({
        method: 'POST',
        path: t.path,
        body: (t as { body?: string }).body ?? body,
        headers: { 'content-type': 'application/json', authorization: t.auth },
      });
      head.push(performance.now() - t0);
      await res.body.text();
      lat.push(performance.now() - t0);
    }
    lat.sort((a, b) => a - b);
    head.sort((a, b) => a - b);
    console.log(
      round,
      name,
      'headers p50',
      head[150]!.toFixed(3),
      'total p50',
      lat[150]!.toFixed(3),
      'p90',
      lat[270]!.toFixed(3),
    );
  }
process.exit(0);

// bench:activate — how long a paid slot takes from POST /activate to status "active" on the local
// backend (the real agent host process, a loopback Telegram fake that accepts the bot token), at
// the control plane's default settings. The first activation also starts the agent host; it is
// reported apart from the timed runs. The status is polled every POLL_MS over HTTP.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { FakeTelegram } from '@berth/testkit';
import { ms, report } from './load.js';
import { table } from './processes.js';
import { listeningControlPlane } from './slots.js';

const RUNS = Number(process.env.ACTIVATE_RUNS ?? 20);
const POLL_MS = Number(process.env.ACTIVATE_POLL_MS ?? 5);

const tg = await new FakeTelegram().start();
const dataDir = mkdtempSync(join(tmpdir(), 'berth-bench-activate-'));
const { rt, url, call } = await listeningControlPlane(
  { DATA_DIR: dataDir, TELEGRAM_API_ROOT: tg.url },
  'bench-activate@example.com',
);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** Buys and pays a slot (untimed), then times activate → active. */
async function once(i: number): Promise<number> {
  const bot = `${7100000000 + i}:AAactivateBenchToken_${String(i).padStart(16, '0')}`;
  tg.addBot(bot);
  const bought = await call('POST', '/api/v1/assistants/purchase', { apiMode: 'byok' });
  const { deploymentId, checkoutUrl } = bought.json.data;
  await request(`${url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const t0 = performance.now();
  const act = await call('POST', `/api/v1/assistants/${deploymentId}/activate`, {
    name: `bench ${i}`,
    modelProvider: 'openai',
    modelId: 'gpt-4o-mini',
    modelApiKey: 'sk-bench',
    messengerBotToken: bot,
  });
  if (act.status !== 200) throw new Error(`activate answered ${act.status}: ${JSON.stringify(act.json)}`);
  for (;;) {
    const s = await call('GET', `/api/v1/assistants/${deploymentId}/status`);
    if (s.json.data.status === 'active') return performance.now() - t0;
    if (s.json.data.status === 'failed') throw new Error(`deploy failed: ${s.json.data.statusMessage}`);
    if (performance.now() - t0 > 30_000) throw new Error('not active within 30 s');
    await sleep(POLL_MS);
  }
}

try {
  const first = await once(0);
  const times: number[] = [];
  for (let i = 1; i <= RUNS; i++) times.push(await once(i));
  const sorted = [...times].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  console.log(
    `\nbench:activate (local backend, real agent host, loopback Telegram fake; status polled every ${POLL_MS} ms)\n`,
  );
  table(
    ['runs', 'p50 ms', 'p90 ms', 'max ms'],
    [
      ['first (starts the agent host)', ms(first), '', ''],
      [String(RUNS), ms(pct(50)), ms(pct(90)), ms(sorted.at(-1)!)],
    ],
  );
  console.log(`\nactivate → active: p50 ${ms(pct(50))} ms (goal: at most 100 ms)`);
  report('activate', {
    firstMs: first,
    runs: RUNS,
    p50: pct(50),
    p90: pct(90),
    max: sorted.at(-1),
    goal: pct(50) <= 100,
  });
} finally {
  await rt.close();
  await tg.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

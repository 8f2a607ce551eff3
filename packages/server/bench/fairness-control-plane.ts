// The control plane for bench:fairness: the real runtime with its local agent host, managed
// assistants whose model calls go through the gateway to the router given as argv[2]. A quiet
// tenant (one key, one assistant) and a noisy one (several keys and assistants). Hands the keys
// and ids to the parent as one JSON line.
import { createRuntime, createLogger, loadConfig } from '@berth/server';
import { scratchDir } from '@berth/testkit/scratch-dir';
import { ready } from './processes.js';
import { benchKey, buyAndActivate, routerCatalog } from './slots.js';

const [routerUrl, telegramUrl, botsJson] = process.argv.slice(2) as [string, string, string];
const bots = JSON.parse(botsJson) as string[];
const NOISY_KEYS = Number(process.env.NOISY_KEYS ?? 4);
const dir = scratchDir('berth-bench-fair-');
const catalog = routerCatalog(dir, routerUrl);
const config = loadConfig({
  DATA_DIR: dir,
  MODEL_CATALOG: catalog,
  TELEGRAM_API_ROOT: telegramUrl,
  MANAGED_PROVIDER_API_KEY: 'sk-test-model-key-0123456789abcdef',
  MANAGED_MONTHLY_CREDITS_USD: '1000000',
  // The per-minute limit would cut the flood short; the bench measures the worst case without it.
  RATE_LIMIT_PER_MINUTE: '0',
  LOG_LEVEL: 'warn',
});
const rt = await createRuntime(config, { logger: createLogger('warn'), allowPrivateFetch: true });
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
// Measured once start-up's work after listening is done (the serializers compiled in the background).
await rt.compiled;

async function assistant(key: string, bot: string): Promise<string> {
  const h = { 'x-api-key': key };
  const id = await buyAndActivate(rt, key, 'managed', {
    name: 'bench',
    modelId: 'router/bench',
    messengerBotToken: bot,
  });
  for (let i = 0; i < 600; i++) {
    const s = (await rt.app.inject({ url: `/api/v1/assistants/${id}/status`, headers: h })).json();
    if (s.data.status === 'active') return id;
    if (s.data.status === 'failed') throw new Error(s.data.statusMessage);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('assistant did not become active');
}

const quietKey = await benchKey(rt, 'quiet@example.com');
const quietId = await assistant(quietKey, bots[0]!);
const noisyKeys: string[] = [];
for (let i = 0; i < NOISY_KEYS; i++) noisyKeys.push(await benchKey(rt, 'noisy@example.com'));
const noisyIds: string[] = [];
for (const bot of bots.slice(1)) noisyIds.push(await assistant(noisyKeys[0]!, bot));
ready(JSON.stringify({ ready: true, url: address, quietKey, quietId, noisyKeys, noisyIds }));
process.on('SIGINT', async () => {
  await rt.close();
  process.exit(0);
});

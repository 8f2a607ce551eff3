// The control plane for bench:gateway: one managed deployment whose model calls go through the
// model gateway to the router given as argv[2]. Hands its URL and the deployment's gateway
// credential to the parent as one JSON line.
import { createRuntime, loadConfig } from '@berth/server';
import { scratchDir } from '@berth/testkit/scratch-dir';
import { ready } from './processes.js';
import { BENCH_BOT_TOKEN, benchKey, buyAndActivate, routerCatalog } from './slots.js';
import { workersAt } from './workers.js';

const routerUrl = process.argv[2]!;
const dir = scratchDir('berth-bench-gw-');
const catalog = routerCatalog(dir, routerUrl);
const config = loadConfig({
  DATA_DIR: dir,
  MODEL_CATALOG: catalog,
  MANAGED_PROVIDER_API_KEY: 'sk-test-model-key-0123456789abcdef',
  MANAGED_MONTHLY_CREDITS_USD: '1000000',
});
const rt = await createRuntime(config, { workers: workersAt('none', 'http://127.0.0.1:9') });
const key = await benchKey(rt);
const deploymentId = await buyAndActivate(rt, key, 'managed', {
  name: 'bench',
  modelId: 'router/bench',
  messengerBotToken: BENCH_BOT_TOKEN,
});
await rt.idle();
await rt.app.listen({ port: 0, host: '127.0.0.1' });
// Measured once start-up's work after listening is done (the serializers compiled in the background).
await rt.compiled;
const { generation } = (await rt.services.deployments.findById(deploymentId))!;
ready(
  JSON.stringify({
    ready: true,
    // /gateway/v1 is served on the gateway's own listener only.
    url: rt.gatewayUrl(),
    credential: rt.services.billing.credentials.issue(deploymentId, generation),
  }),
);
process.on('SIGINT', () => process.exit(0));

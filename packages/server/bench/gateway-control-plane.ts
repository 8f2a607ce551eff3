// The control plane for bench:gateway: one managed deployment whose model calls go through the
// model gateway to the router given as argv[2]. Hands its URL and the deployment's gateway
// credential to the parent as one JSON line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createRuntime, loadConfig, type WorkersPort } from '@berth/server';
import { ready } from './processes.js';

const routerUrl = process.argv[2]!;
const dir = mkdtempSync(join(tmpdir(), 'berth-bench-gw-'));
const catalog = join(dir, 'models.json');
writeFileSync(
  catalog,
  JSON.stringify({
    providers: [
      { id: 'openrouter', baseUrl: routerUrl, models: [{ id: 'router/bench', pricing: { prompt: 1, completion: 2 } }] },
    ],
  }),
);
const noWorkers: WorkersPort = {
  name: 'none',
  async createWorker(spec) {
    return { workerUrl: `http://127.0.0.1:9/agents/${spec.workerName}` };
  },
  async deleteWorker() {
    return 'deleted';
  },
  async workerHealth() {
    return { ready: true, failed: false, reason: null };
  },
  async listWorkers() {
    return [];
  },
};
const config = loadConfig({
  DATA_DIR: dir,
  MODEL_CATALOG: catalog,
  MANAGED_PROVIDER_API_KEY: 'sk-test-model-key-0123456789abcdef',
  MANAGED_MONTHLY_CREDITS_USD: '1000000',
});
const rt = await createRuntime(config, { workers: noWorkers });
const { key } = await createApiKey(
  { users: rt.services.users, secrets: rt.secrets, now: () => new Date() },
  'bench@example.com',
);
const h = { 'x-api-key': key };
const bought = (
  await rt.app.inject({
    method: 'POST',
    url: '/api/v1/assistants/purchase',
    headers: h,
    payload: { apiMode: 'managed' },
  })
).json().data;
await rt.app.inject({ method: 'POST', url: `${new URL(bought.checkoutUrl).pathname}/complete` });
await rt.app.inject({
  method: 'POST',
  url: `/api/v1/assistants/${bought.deploymentId}/activate`,
  headers: h,
  payload: {
    name: 'bench',
    modelId: 'router/bench',
    messengerBotToken: '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x',
  },
});
await rt.idle();
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
ready(
  JSON.stringify({ ready: true, url: address, credential: rt.services.billing.credentials.issue(bought.deploymentId) }),
);
process.on('SIGINT', () => process.exit(0));

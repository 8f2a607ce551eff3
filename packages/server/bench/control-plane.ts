// The control plane for the benchmarks: the real app and store, with a workers backend that points
// every deployment at the instant worker, at the default log level (info). Hands what the load
// generator needs to the parent as one JSON line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey, createRuntime, loadConfig, type WorkersPort } from '@berth/server';
import { ready } from './processes.js';

const workerBase = process.argv[2]!;
const staticWorkers: WorkersPort = {
  name: 'static',
  async createWorker(spec) {
    return { workerUrl: `${workerBase}/agents/${spec.workerName}` };
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
  DATA_DIR: mkdtempSync(join(tmpdir(), 'berth-bench-')),
  MANAGED_PROVIDER_API_KEY: 'sk-bench',
});
const rt = await createRuntime(config, { workers: staticWorkers });
const { key } = await createApiKey(
  { users: rt.services.users, secrets: rt.secrets, now: () => new Date() },
  'bench@example.com',
);
const h = { 'x-api-key': key };
const bought = (
  await rt.app.inject({ method: 'POST', url: '/api/v1/assistants/purchase', headers: h, payload: { apiMode: 'byok' } })
).json().data;
await rt.app.inject({ method: 'POST', url: `${new URL(bought.checkoutUrl).pathname}/complete` });
await rt.app.inject({
  method: 'POST',
  url: `/api/v1/assistants/${bought.deploymentId}/activate`,
  headers: h,
  payload: {
    name: 'bench',
    modelProvider: 'openai',
    modelId: 'gpt-4o-mini',
    messengerBotToken: '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x',
    modelApiKey: 'sk-bench',
  },
});
await rt.idle();
const d = await rt.services.deployments.findById(bought.deploymentId);
const address = await rt.app.listen({ port: 0, host: '127.0.0.1' });
ready(
  JSON.stringify({
    ready: true,
    url: address,
    key,
    deploymentId: d!.id,
    workerUrl: d!.workerUrl,
    gatewayToken: rt.secrets.open(d!.gatewayTokenEnc!),
  }),
);
process.on('SIGINT', () => process.exit(0));

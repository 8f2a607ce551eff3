// The model gateway as a managed worker reaches it: a control plane whose gateway listens on a
// loopback port, with the operator's router key, and a deployment's worker as the gateway knows it.
import type { Harness } from './harness.js';
import { startHarness } from './harness.js';
import { orStop } from './stop-all.js';

/** The operator's key to the managed router (MANAGED_PROVIDER_API_KEY). */
export const OPERATOR_KEY = 'sk-operator-router-key-0123456789';

/** A deployment's worker: the credential its spec carries to the gateway, and its usage period's key. */
export interface GatewayWorker {
  id: string;
  credential: string;
  key: { deploymentId: string; periodEnd: string };
}

/** A harness with OPERATOR_KEY and `env` (MODEL_CATALOG at least), and the URL of its gateway's own listener. */
export async function startGatewayHarness(env: Record<string, string>): Promise<{ h: Harness; url: string }> {
  const h = await startHarness({ MANAGED_PROVIDER_API_KEY: OPERATOR_KEY, ...env });
  return orStop(
    () => h.close(),
    async () => {
      await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
      // The gateway answers only on its own listener (decision 0029).
      return { h, url: h.runtime.gatewayUrl() };
    },
  );
}

/** Deployment `id`'s worker, as it calls the gateway. */
export async function gatewayWorker(h: Harness, id: string): Promise<GatewayWorker> {
  const d = (await h.runtime.services.deployments.findById(id))!;
  return {
    id,
    credential: h.workers.workers.get(d.workerName)!.model.apiKey!,
    key: { deploymentId: id, periodEnd: d.currentPeriodEnd },
  };
}

import { randomToken } from '../platform/crypto/tokens.js';
import type { RedeployInput } from './schemas/assistants.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { saveDeployment } from './save-deployment.js';
import { patchFor } from './apply-change.js';

export type RedeployDeps = Pick<
  Services,
  'cache' | 'transaction' | 'deployTimeoutMs' | 'deployments' | 'now' | 'secrets'
>;

export async function redeployDeployment(s: RedeployDeps, caller: Caller, id: string, input: RedeployInput) {
  const d = await loadOwned(s, caller, id);
  const change = checkTransition('redeploy', d)!;
  const saved = await saveDeployment(
    s,
    d,
    {
      ...patchFor(change),
      statusMessage: 'Deploying the worker.',
      workerUrl: null,
      isPrebuy: false,
      // A fresh gateway token: whatever held the old one can no longer reach the new worker.
      gatewayTokenEnc: s.secrets.seal(randomToken(48)),
      ...(input.callbackUrl !== undefined ? { userCallbackUrl: input.callbackUrl } : {}),
    },
    { bumpGeneration: change.bumpGeneration, deploy: true },
  );
  return saved;
}

import { AppError } from '../platform/errors/app-error.js';
import { randomToken } from '../platform/crypto/tokens.js';
import { assertTelegramTokenShape } from '../domain/bot-token.js';
import type { ActivateInput } from './schemas/assistants.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { resolveModel } from '../chat/index.js';
import { saveDeployment } from './save-deployment.js';
import { patchFor } from './apply-change.js';
import { assertBotTokenFree, withBotTokenClaim } from '../settings/index.js';

export type ActivateDeps = Pick<
  Services,
  'cache' | 'catalog' | 'transaction' | 'deployTimeoutMs' | 'deployments' | 'managedProvider' | 'now' | 'secrets'
>;

export async function activateDeployment(s: ActivateDeps, caller: Caller, id: string, input: ActivateInput) {
  const d = await loadOwned(s, caller, id);
  const change = checkTransition('activate', d)!;
  const model = resolveModel(s.catalog, s.managedProvider, d.apiMode, input, { modelProvider: '', modelId: '' });
  if (d.apiMode === 'byok' && !input.modelApiKey) {
    throw new AppError(
      'INVALID_INPUT',
      'modelApiKey is required in byok mode: it is the key Berth uses to call your model provider.',
    );
  }
  assertTelegramTokenShape(input.messengerBotToken);
  const tokenHash = s.secrets.hash(input.messengerBotToken);
  await assertBotTokenFree(s, caller, tokenHash, d.id);
  const save = () =>
    saveDeployment(
      s,
      d,
      {
        name: input.name,
        ...model,
        botTokenEnc: s.secrets.seal(input.messengerBotToken),
        botTokenHash: tokenHash,
        // Managed and unlimited deployments run on the platform's router key; a key sent anyway is dropped.
        modelApiKeyEnc: d.apiMode === 'byok' ? s.secrets.seal(input.modelApiKey!) : null,
        gatewayTokenEnc: s.secrets.seal(randomToken(48)),
        userCallbackUrl: input.callbackUrl ?? null,
        ...patchFor(change),
        statusMessage: 'Deploying the worker.',
        isPrebuy: false,
      },
      { bumpGeneration: change.bumpGeneration, deploy: true },
    );
  return withBotTokenClaim(s, caller, tokenHash, d.id, save);
}

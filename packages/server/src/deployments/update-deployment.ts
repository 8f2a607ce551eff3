import { AppError } from '../platform/errors/app-error.js';
import { assertTelegramTokenShape } from '../domain/bot-token.js';
import type { UpdateInput } from './schemas/assistants.js';
import type { DeploymentPatch } from '../platform/store/deployments.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from './load-owned.js';
import { checkTransition } from './check-transition.js';
import { resolveModel } from '../chat/index.js';
import { saveDeployment } from './save-deployment.js';
import { assertBotTokenFree, withBotTokenClaim } from '../settings/index.js';

export type UpdateDeps = Pick<
  Services,
  'cache' | 'catalog' | 'transaction' | 'deployTimeoutMs' | 'deployments' | 'managedProvider' | 'now' | 'secrets'
>;

export async function updateDeployment(s: UpdateDeps, caller: Caller, id: string, input: UpdateInput) {
  const d = await loadOwned(s, caller, id);
  checkTransition('update', d);
  if (d.apiMode !== 'byok' && input.modelApiKey !== undefined) {
    throw new AppError(
      'INVALID_INPUT',
      `modelApiKey cannot be set on a ${d.apiMode} deployment: it runs on the platform's ${s.managedProvider} key.`,
    );
  }
  if (input.messengerBotToken !== undefined) assertTelegramTokenShape(input.messengerBotToken);
  const patch: DeploymentPatch = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.modelId !== undefined || (input.modelProvider !== undefined && d.apiMode === 'byok')) {
    Object.assign(patch, resolveModel(s.catalog, s.managedProvider, d.apiMode, input, d));
  }
  if (input.messengerBotToken !== undefined) {
    patch.botTokenHash = s.secrets.hash(input.messengerBotToken);
    await assertBotTokenFree(s, caller, patch.botTokenHash, d.id);
    patch.botTokenEnc = s.secrets.seal(input.messengerBotToken);
  }
  if (input.modelApiKey !== undefined) patch.modelApiKeyEnc = s.secrets.seal(input.modelApiKey);
  if (Object.keys(patch).length === 0) return d; // e.g. only a forced modelProvider on a managed slot
  const hash = patch.botTokenHash;
  return hash
    ? withBotTokenClaim(s, caller, hash, d.id, () => saveDeployment(s, d, patch))
    : saveDeployment(s, d, patch);
}

// A stranger asked a pairing-mode bot for access (DESIGN §9.3): its worker tells the control plane
// with the deployment's gateway credential, and the owner's callback URL gets a `pairing.requested`
// event, signed, sequenced and retried like status callbacks (callbacks/). Without a callback URL
// the owner sees the request in the dashboard's pending list only.
import { bearerToken } from '@berth/contracts/bearer';
import { AppError } from '../platform/errors/app-error.js';
import type { Services } from '../services.js';
import { enqueueCallback } from '../callbacks/index.js';
import { approvePairingOf, denyPairingOf } from './pairings.js';
import type { SettingsDeps } from './settings-verbs.js';

export interface PairingNotice {
  code: string;
  telegramUserId: number;
  name: string | null;
  expiresAt: string;
}

type Deps = Pick<Services, 'billing' | 'deployments' | 'jobs' | 'callbackSequences' | 'now'>;

const unauthorized = () =>
  new AppError('UNAUTHORIZED', 'Send this deployment\'s gateway credential as "Authorization: Bearer <credential>".');

/** The deployment a worker's gateway credential names, while its generation is current. */
async function deploymentOfWorker(s: Pick<Services, 'billing' | 'deployments'>, authorization: string | undefined) {
  const claim = s.billing.credentials.verify(bearerToken(authorization));
  if (!claim) throw unauthorized();
  const d = await s.deployments.findById(claim.deploymentId);
  // A credential dies with its generation (decision 0029): a stopped or replaced worker is not heard.
  if (!d || d.generation !== claim.generation) throw unauthorized();
  return d;
}

/**
 * The owner pressed Approve or Deny under a pairing request the bot sent them (DESIGN §9.3): the
 * worker, which checked that the press was the owner's (settings.owner.telegramUserId), asks with
 * its gateway credential, and the code is decided as the dashboard's buttons decide it.
 */
export async function decidePairingAsWorker(
  s: Deps & SettingsDeps,
  authorization: string | undefined,
  code: string,
  decision: 'approve' | 'deny',
): Promise<{ success: true }> {
  const d = await deploymentOfWorker(s, authorization);
  if (decision === 'approve') await approvePairingOf(s, d, code);
  else await denyPairingOf(s, d, code);
  return { success: true };
}

export async function pairingRequested(
  s: Deps,
  authorization: string | undefined,
  p: PairingNotice,
): Promise<{ announced: boolean }> {
  const d = await deploymentOfWorker(s, authorization);
  if (!d.userCallbackUrl) return { announced: false };
  await enqueueCallback(
    s,
    { ...d, userCallbackUrl: d.userCallbackUrl },
    {
      type: 'pairing.requested',
      timestamp: s.now().toISOString(),
      data: {
        deploymentId: d.id,
        code: p.code,
        telegramUserId: p.telegramUserId,
        name: p.name,
        expiresAt: p.expiresAt,
      },
    },
  );
  return { announced: true };
}

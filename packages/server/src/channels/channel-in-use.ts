// One WhatsApp number runs one assistant (DESIGN §9.1): Meta delivers a number's messages to one
// webhook, so a second assistant on it would never hear them. Same rule as BOT_TOKEN_IN_USE: the
// other assistant is named only to its owner.
import { AppError } from '../platform/errors/app-error.js';
import { CHANNEL_ACCOUNT_INDEX, isUniqueViolation } from '../platform/store/unique-violation.js';
import { ownerOf, type Caller, type Services } from '../services.js';

type Deps = Pick<Services, 'channels' | 'deployments'>;

async function inUse(s: Deps, caller: Caller, type: string, accountId: string) {
  const holder = await s.channels.findByAccount(type, accountId);
  const d = holder && (await s.deployments.findOwned(holder.deploymentId, ownerOf(caller)));
  const named = d ? ` ("${d.name}", ${d.id})` : '';
  return new AppError(
    'CHANNEL_IN_USE',
    type === 'discord'
      ? `This Discord application already runs another assistant${named}. An application can be run by one assistant only: remove the channel from the other assistant first.`
      : `This WhatsApp number already runs another assistant${named}. A number can be run by one assistant only: remove the channel from the other assistant first.`,
  );
}

/** Runs the write; the unique index's refusal (another assistant holds the account) becomes the 409. */
export async function withChannelClaim<T>(
  s: Deps,
  caller: Caller,
  claim: { type: string; accountId: string; self: string },
  write: () => Promise<T>,
): Promise<T> {
  const holder = await s.channels.findByAccount(claim.type, claim.accountId);
  if (holder && holder.deploymentId !== claim.self) throw await inUse(s, caller, claim.type, claim.accountId);
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, CHANNEL_ACCOUNT_INDEX)) throw await inUse(s, caller, claim.type, claim.accountId);
    throw err;
  }
}

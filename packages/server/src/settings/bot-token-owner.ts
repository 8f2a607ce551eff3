// One bot token runs one assistant (DESIGN §7.1): Telegram gives a second poller of one token 409
// Conflict, so Berth refuses the second deployment up front. Tokens are compared by their keyed
// hash (SecretBox.hash); the store's unique index on it settles concurrent activations.
import { AppError } from '../platform/errors/app-error.js';
import type { Deployment } from '../domain/deployment.js';
import { isUniqueViolation } from '../platform/store/unique-violation.js';
import { ownerOf, type Caller, type Services } from '../services.js';

const INDEX = { index: 'deployments_bot_token_hash_idx', column: 'bot_token_hash' };

const owns = (caller: Caller, d: Deployment) => {
  const o = ownerOf(caller);
  return o.organizationId ? d.organizationId === o.organizationId : d.userId === o.userId && !d.organizationId;
};

/** The 409; it names the other deployment only to its owner. */
async function inUse(s: Pick<Services, 'deployments'>, caller: Caller, hash: string, self: string) {
  const holder = await s.deployments.findByBotTokenHash(hash);
  const named = holder && holder.id !== self && owns(caller, holder) ? ` ("${holder.name}", ${holder.id})` : '';
  return new AppError(
    'BOT_TOKEN_IN_USE',
    `This bot token already runs another assistant${named}. A Telegram bot can be run by one assistant only: create a new bot with @BotFather, or delete the other assistant first.`,
  );
}

/** Refuses early (a clear error before anything is written) when another deployment holds it. */
export async function assertBotTokenFree(
  s: Pick<Services, 'deployments'>,
  caller: Caller,
  hash: string,
  self: string,
): Promise<void> {
  const holder = await s.deployments.findByBotTokenHash(hash);
  if (holder && holder.id !== self) throw await inUse(s, caller, hash, self);
}

/** Runs the write; the unique index's refusal (a concurrent activation won) becomes the same 409. */
export async function withBotTokenClaim<T>(
  s: Pick<Services, 'deployments'>,
  caller: Caller,
  hash: string,
  self: string,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueViolation(err, INDEX)) throw await inUse(s, caller, hash, self);
    throw err;
  }
}

/**
 * Deployments sealed before the hash existed get theirs at start-up. Two old deployments on one
 * token cannot both have it: the second keeps none (logged), and a new one can still not take it.
 */
export async function backfillBotTokenHashes(s: Pick<Services, 'deployments' | 'secrets' | 'log'>): Promise<void> {
  for (const row of await s.deployments.listMissingBotTokenHash()) {
    try {
      await s.deployments.setBotTokenHash(row.id, s.secrets.hash(s.secrets.open(row.botTokenEnc)));
    } catch (err) {
      if (!isUniqueViolation(err, INDEX)) throw err;
      s.log.warn({ deploymentId: row.id }, 'this deployment shares its bot token with another one; update its token');
    }
  }
}

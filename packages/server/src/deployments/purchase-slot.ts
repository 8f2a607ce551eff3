import { randomUUID } from 'node:crypto';
import { randomToken } from '../platform/crypto/tokens.js';
import {
  CHANNEL_TELEGRAM,
  FRAMEWORK_ASSISTANT_AGENT,
  workerNameFor,
  type ApiMode,
  type Deployment,
} from '../domain/deployment.js';
import { assertCaller, type Caller, type Services } from '../services.js';
import { PENDING_VISIBLE_MS } from './list-deployments.js';
import { AppError } from '../platform/errors/app-error.js';

const slotsFull = (max: number) =>
  new AppError(
    'QUOTA_EXCEEDED',
    `You hold the maximum of ${max} assistant slots on this server (those you bought, personal or for an organization, and those of the organizations you own); delete one you no longer need to buy another.`,
    { limit: max, what: 'slots' },
  );

/** A purchase: the person's slots counted, a checkout made, the slot written. */
export type PurchaseDeps = Pick<Services, 'deployments' | 'limits' | 'managedProvider' | 'now' | 'payments'>;

export async function purchaseSlot(s: PurchaseDeps, caller: Caller, input: { apiMode: ApiMode }) {
  assertCaller(caller);
  // MAX_SLOTS_PER_USER=0 turns the cap off, as RATE_LIMIT_PER_MINUTE=0 does the rate limit.
  const max = s.limits.maxSlotsPerUser || Number.POSITIVE_INFINITY;
  const pendingCutoff = new Date(s.now().getTime() - PENDING_VISIBLE_MS).toISOString();
  // Cheap refusal before a checkout is created; insertCapped below is the race-safe check.
  if ((await s.deployments.countHeldByPerson(caller.userId, pendingCutoff)) >= max) throw slotsFull(max);
  const id = randomUUID();
  const checkoutId = randomToken(32);
  // The checkout comes first: when payments are not configured nothing is written.
  const { checkoutUrl, externalId } = await s.payments.createCheckout({
    deploymentId: id,
    userId: caller.userId,
    apiMode: input.apiMode,
    checkoutId,
  });
  const now = s.now().toISOString();
  const d: Deployment = {
    id,
    userId: caller.userId,
    organizationId: caller.organizationId,
    name: `assistant-${id.slice(0, 8)}`,
    modelProvider: input.apiMode === 'byok' ? '' : s.managedProvider,
    modelId: '',
    channelType: CHANNEL_TELEGRAM,
    apiMode: input.apiMode,
    framework: FRAMEWORK_ASSISTANT_AGENT,
    workerName: workerNameFor(id),
    workerUrl: null,
    status: 'purchased',
    statusMessage: 'Waiting for checkout.',
    desired: 'stopped',
    observed: 'absent',
    paymentStatus: 'pending',
    paymentSubscriptionId: '',
    currentPeriodEnd: now,
    canceledAt: null,
    isPrebuy: true,
    userCallbackUrl: null,
    botTokenEnc: null,
    botTokenHash: null,
    modelApiKeyEnc: null,
    gatewayTokenEnc: null,
    checkoutId: externalId ?? checkoutId,
    generation: 0,
    paymentEventAt: null,
    suspendedReason: null,
    createdAt: now,
    updatedAt: now,
  };
  if (!(await s.deployments.insertCapped(d, max, pendingCutoff))) throw slotsFull(max);
  return { deploymentId: id, checkoutUrl };
}

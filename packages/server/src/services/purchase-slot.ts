import { randomUUID } from 'node:crypto';
import { randomToken } from '../crypto/tokens.js';
import {
  CHANNEL_TELEGRAM,
  FRAMEWORK_ASSISTANT_AGENT,
  workerNameFor,
  type ApiMode,
  type Deployment,
} from '../domain/deployment.js';
import { assertCaller, type Caller, type Services } from './context.js';

export async function purchaseSlot(s: Services, caller: Caller, input: { apiMode: ApiMode }) {
  assertCaller(caller);
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
    organizationId: null,
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
    paymentStatus: 'pending',
    paymentSubscriptionId: '',
    currentPeriodEnd: now,
    canceledAt: null,
    isPrebuy: true,
    userCallbackUrl: null,
    botTokenEnc: null,
    modelApiKeyEnc: null,
    gatewayTokenEnc: null,
    checkoutId: externalId ?? checkoutId,
    generation: 0,
    paymentEventAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await s.deployments.insert(d);
  return { deploymentId: id, checkoutUrl };
}

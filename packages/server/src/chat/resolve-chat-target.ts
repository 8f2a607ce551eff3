import { nextStepWhenNotReady } from '../domain/next-step.js';
import { AppError } from '../platform/errors/app-error.js';
import { FRAMEWORK_ASSISTANT_AGENT } from '../domain/deployment.js';
import { assertCaller, chatTargetKey, type CachedTarget, type Caller, type Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import type { ChatMeter } from '../billing/index.js';

/** What finding a chat's target reads: the deployment (once per cache lifetime) and its token. */
export type ChatTargetDeps = Pick<Services, 'cache' | 'deployments' | 'secrets'>;
export type ListModelsDeps = ChatTargetDeps;

/** Where a ready assistant's chat goes, and what metering needs (with its provider) for the early refusal. */
export interface ChatTarget {
  workerUrl: string;
  workerName: string;
  gatewayToken: string;
  meter: ChatMeter | undefined;
  modelProvider: string;
}

/**
 * chatTargetKey's string per owner and deployment id, made once: a Map keeps the hash of a string it
 * has hashed, so a chat whose key is found here hashes only its id (from the URL) where a freshly
 * joined ~80-character key was flattened and hashed on every chat (~0.25 µs against ~0.6 µs, decision
 * 0027, round 10). The key is a function of the owner and the id alone, so it never goes stale.
 * Organizations and users apart, as chatTargetKey keeps them; cleared past 10,000 keys.
 */
const keysOf = { org: new Map<string, Map<string, string>>(), user: new Map<string, Map<string, string>>(), size: 0 };

function targetKey(caller: Caller, id: string): string {
  const byOwner = caller.organizationId ? keysOf.org : keysOf.user;
  const owner = caller.organizationId ?? caller.userId;
  let ids = byOwner.get(owner);
  let key = ids?.get(id);
  if (key === undefined) {
    if (keysOf.size >= 10_000) {
      keysOf.org.clear();
      keysOf.user.clear();
      keysOf.size = 0;
      ids = undefined;
    }
    if (!ids) {
      ids = new Map();
      byOwner.set(owner, ids);
    }
    key = chatTargetKey({ userId: caller.userId, organizationId: caller.organizationId, id });
    ids.set(id, key);
    keysOf.size++;
  }
  return key;
}

/** The chat hot path reads a deployment at most once per cache lifetime. */
function cachedTarget(s: ChatTargetDeps, caller: Caller, id: string): CachedTarget | undefined {
  assertCaller(caller);
  return s.cache.targets.get(targetKey(caller, id));
}

async function target(s: ChatTargetDeps, caller: Caller, id: string): Promise<CachedTarget & { id: string }> {
  const hit = cachedTarget(s, caller, id);
  return hit ? { id, ...hit } : loadTarget(s, caller, id);
}

/** Reads the deployment and caches what chat needs of it. */
async function loadTarget(s: ChatTargetDeps, caller: Caller, id: string): Promise<CachedTarget & { id: string }> {
  const d = await loadOwned(s, caller, id);
  const t: CachedTarget = {
    framework: d.framework,
    status: d.status,
    workerUrl: d.workerUrl,
    workerName: d.workerName,
    modelProvider: d.modelProvider,
    createdAt: d.createdAt,
    gatewayToken: d.gatewayTokenEnc ? s.secrets.open(d.gatewayTokenEnc) : null,
    meter: {
      id: d.id,
      userId: d.userId,
      organizationId: d.organizationId,
      apiMode: d.apiMode,
      currentPeriodEnd: d.currentPeriodEnd,
      userCallbackUrl: d.userCallbackUrl,
      generation: d.generation,
      modelId: d.modelId,
    },
  };
  s.cache.targets.set(chatTargetKey({ userId: caller.userId, organizationId: caller.organizationId, id }), t);
  return { id: d.id, ...t };
}

function checkFramework(t: CachedTarget) {
  if (t.framework !== FRAMEWORK_ASSISTANT_AGENT) {
    throw new AppError(
      'UNSUPPORTED_FRAMEWORK',
      `This deployment runs the "${t.framework}" framework; chat and models are served only for ${FRAMEWORK_ASSISTANT_AGENT} deployments.`,
    );
  }
}

/**
 * Stock SDKs retry a 409 (the OpenAI SDKs three times, the Vercel SDK for seconds). Waiting helps
 * only while the deployment is deploying (or active with its worker on the way); a purchased,
 * stopped or failed one will not become ready by itself, so retries are switched off.
 */
export function notReadyRetry(status: string): Record<string, string> {
  return status === 'deploying' || status === 'active' ? { 'retry-after': '2' } : { 'x-should-retry': 'false' };
}

/**
 * The ChatTarget of each cached deployment, built on its first chat: the cache entry is replaced,
 * never changed, when the deployment changes (chatTargetKey's invalidators), so it goes with it.
 */
const built = new WeakMap<CachedTarget, ChatTarget>();

/** Ownership, framework, readiness: what must hold before a chat request may reach the worker. */
function readyTarget(t: CachedTarget, id: string): ChatTarget {
  checkFramework(t);
  if (t.status !== 'active' || !t.workerUrl || !t.gatewayToken) {
    throw new AppError(
      'ASSISTANT_NOT_READY',
      `The assistant is ${t.status}${t.status === 'active' ? ' but its worker is not provisioned yet' : ''}; chat needs an active deployment. ${nextStepWhenNotReady(t.status, id)}`,
      { status: t.status },
      notReadyRetry(t.status),
    );
  }
  let c = built.get(t);
  if (!c) {
    c = {
      workerUrl: t.workerUrl,
      workerName: t.workerName,
      gatewayToken: t.gatewayToken,
      meter: t.meter && { ...t.meter, modelProvider: t.modelProvider },
      modelProvider: t.modelProvider,
    };
    built.set(t, c);
  }
  return c;
}

/**
 * resolveChatTarget without a promise when the deployment is in the cache (every chat but the
 * first within its lifetime); undefined when it must be read. Throws as resolveChatTarget does.
 */
export function cachedChatTarget(s: ChatTargetDeps, caller: Caller, id: string): ChatTarget | undefined {
  const lower = id.toLowerCase();
  const hit = cachedTarget(s, caller, lower);
  return hit && readyTarget(hit, lower);
}

/** resolveChatTarget once cachedChatTarget has missed: the store is read without looking the cache up again. */
export async function loadChatTarget(s: ChatTargetDeps, caller: Caller, id: string): Promise<ChatTarget> {
  const t = await loadTarget(s, caller, id.toLowerCase());
  return readyTarget(t, t.id);
}

export async function resolveChatTarget(s: ChatTargetDeps, caller: Caller, id: string): Promise<ChatTarget> {
  const t = await target(s, caller, id.toLowerCase());
  return readyTarget(t, t.id);
}

export async function listModels(s: ListModelsDeps, caller: Caller, id: string) {
  const t = await target(s, caller, id.toLowerCase());
  checkFramework(t);
  return {
    object: 'list' as const,
    data: [
      {
        id: 'assistant-agent',
        object: 'model' as const,
        owned_by: t.modelProvider || 'berth',
        created: Math.floor(Date.parse(t.createdAt) / 1000),
      },
    ],
  };
}

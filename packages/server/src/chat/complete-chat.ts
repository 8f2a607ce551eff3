// The chat use case (endpoint 10) without HTTP: who may chat with which assistant, whether the
// body fits its model, the caps on chats in flight, and the early refusal when the allowance or
// the owner's cap cannot cover the call (the model gateway books every model call, byok included:
// one meter, decision 0012). The route hands it the raw body and `send`, which streams the worker's answer to the
// client (chat/proxy/), so the order of the checks lives here once.
import { capabilitiesOf } from '../catalog/index.js';
import { admitChat, type ChatMeterDeps } from '../billing/index.js';
import type { Caller, Services } from '../services.js';
import { checkChatBody } from './proxy/chat-body.js';
import { cachedChatTarget, loadChatTarget, type ChatTarget, type ChatTargetDeps } from './resolve-chat-target.js';

export type ChatDeps = ChatTargetDeps & ChatMeterDeps & Pick<Services, 'catalog' | 'limits'>;

/** Sends the body to the worker and relays its answer; resolves when the answer ended or the client went away. */
export type SendToWorker = (target: ChatTarget, body: Buffer) => Promise<void>;

export interface ChatRequest {
  caller: Caller;
  deploymentId: string;
  /**
   * The chat completion body; or how to make it from the request (the Responses API's
   * translation, which may read the store for a previous_response_id), called once the deployment
   * is known to be ready, where chat checks its body.
   */
  body: Buffer | (() => Buffer | Promise<Buffer>);
  /** Whose in-flight chats count against the per-key cap: the API key, or the user of a session. */
  slotKey: string;
  /** A signed-in dashboard session (not a key): only it may preview unsaved settings (decision 0021). */
  signedIn: boolean;
}

export async function completeChat(s: ChatDeps, r: ChatRequest, send: SendToWorker): Promise<void> {
  // A cached deployment is resolved without a promise turn (every chat but the first in the cache's lifetime).
  const target = cachedChatTarget(s, r.caller, r.deploymentId) ?? (await loadChatTarget(s, r.caller, r.deploymentId));
  const vision = capabilitiesOf(s.catalog.provider(target.modelProvider), target.meter?.modelId ?? '').includes(
    'vision',
  );
  const body = typeof r.body === 'function' ? await r.body() : r.body;
  const { maxTokens } = checkChatBody(body, { vision, session: r.signedIn });
  // Held until the answer ends or the client goes away (send returns on either).
  const release = s.limits.chats.acquire(r.slotKey, r.deploymentId);
  try {
    const admitted = target.meter && admitChat(s, target.meter, { bytes: body.length, maxTokens });
    if (admitted) await admitted;
    await send(target, body);
  } finally {
    release();
  }
}

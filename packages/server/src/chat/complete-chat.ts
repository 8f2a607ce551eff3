// The chat use case (endpoint 10) without HTTP: who may chat with which assistant, whether the
// body fits its model, the caps on chats in flight, and metering around the one call to the
// worker. The route hands it the raw body and `send`, which streams the worker's answer to the
// client (chat/proxy/), so the order of the checks lives here once.
import { capabilitiesOf } from '../catalog/model-catalog.js';
import { admitChat, settleChat, type ChatMeterDeps } from '../billing/meter-chat.js';
import { UsageScanner } from '../billing/usage-scanner.js';
import type { Caller, Services } from '../services.js';
import { checkChatBody } from './proxy/chat-body.js';
import { resolveChatTarget, type ChatTarget, type ChatTargetDeps } from './resolve-chat-target.js';

export type ChatDeps = ChatTargetDeps & ChatMeterDeps & Pick<Services, 'catalog' | 'limits'>;

/**
 * Sends the body to the worker and relays its answer; resolves when the answer ended or the
 * client went away, with the answer's usage when `scan` asked for it.
 */
export type SendToWorker = (target: ChatTarget, scan: boolean) => Promise<UsageScanner | undefined>;

export interface ChatRequest {
  caller: Caller;
  deploymentId: string;
  body: Buffer;
  /** Whose in-flight chats count against the per-key cap: the API key, or the user of a session. */
  slotKey: string;
}

export async function completeChat(s: ChatDeps, r: ChatRequest, send: SendToWorker): Promise<void> {
  const target = await resolveChatTarget(s, r.caller, r.deploymentId);
  const vision = capabilitiesOf(s.catalog.provider(target.modelProvider), target.meter?.modelId ?? '').includes(
    'vision',
  );
  const { maxTokens } = checkChatBody(r.body, { vision });
  // Held until the answer ends or the client goes away (send returns on either).
  const release = s.limits.chats.acquire(r.slotKey, r.deploymentId);
  try {
    const meter = target.meter && { ...target.meter, modelProvider: target.modelProvider };
    const hold = meter ? await admitChat(s, meter, { bytes: r.body.length, maxTokens }) : undefined;
    let scanner: UsageScanner | undefined;
    try {
      scanner = await send(target, hold !== undefined);
    } finally {
      if (hold && meter) await settleChat(s, hold, meter, scanner ?? new UsageScanner(false));
    }
  } finally {
    release();
  }
}

// Webhook ingress (DESIGN §9.1): what a platform POSTs is checked (the channel exists, the
// signature is right, the body is the platform's JSON), stored with its delivery job in one
// transaction, and only then answered 200: an update acknowledged is never lost, whichever replica
// took it or crashed after. A repeat (same message id / update_id) is answered 200 and not stored
// again. Refusals change nothing.
import { AppError } from '../platform/errors/app-error.js';
import { parseJsonBody } from '../platform/http/json-body.js';
import type { StoredChannel } from '../platform/store/channels.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Deployment } from '../domain/deployment.js';
import type { Services } from '../services.js';
import { verifyTokenOf } from '../channels/index.js';
import { metaSignatureMatches, secretMatches, telegramWebhookSecret } from './signatures.js';
import { splitWhatsAppPayload, type SplitUpdate } from './whatsapp-payload.js';

export type IngressDeps = Pick<Services, 'channels' | 'deployments' | 'secrets' | 'transaction' | 'now' | 'log'>;

export interface Accepted {
  /** Updates stored now. */
  accepted: number;
  /** Updates that were stored before (a platform's retry): answered, not stored again. */
  repeated: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const noChannel = () => new AppError('NOT_FOUND', 'No channel has this webhook URL; it may have been removed.');

async function whatsAppChannel(s: IngressDeps, channelId: string): Promise<StoredChannel> {
  const c = UUID.test(channelId) ? await s.channels.findById(channelId) : undefined;
  if (!c || c.type !== 'whatsapp') throw noChannel();
  return c;
}

function json(raw: Buffer): unknown {
  const parsed = parseJsonBody(raw.toString('utf8'));
  if (parsed === undefined)
    throw new AppError('INVALID_REQUEST', 'The webhook body is empty; send the update as JSON.');
  return parsed;
}

/** The assistant the channel belongs to, running (or starting): a stopped one takes nothing. */
async function runningAssistant(s: IngressDeps, deploymentId: string): Promise<Deployment> {
  const d = await s.deployments.findById(deploymentId);
  if (!d) throw noChannel();
  if (!wantsWorker(d.desired))
    throw new AppError(
      'ASSISTANT_NOT_READY',
      'This assistant is stopped, so the update was not taken; the platform sends it again later, and it is answered once the assistant runs.',
    );
  return d;
}

async function store(s: IngressDeps, c: { id: string; type: string }, d: Deployment, updates: SplitUpdate[]) {
  const receivedAt = s.now().toISOString();
  // Each new update and the job that delivers it, in one transaction: both or neither survive a crash.
  const accepted = await s.transaction(async (r) => {
    let added = 0;
    for (const u of updates) {
      const updateId = await r.channelUpdates.add({
        channelId: c.id,
        deploymentId: d.id,
        type: c.type,
        updateKey: u.key,
        body: JSON.stringify(u.body),
        receivedAt,
      });
      if (!updateId) continue;
      await r.jobs.enqueue({ kind: 'channel_update', deploymentId: d.id, payload: { updateId } });
      added++;
    }
    return added;
  });
  return { accepted, repeated: updates.length - accepted };
}

/**
 * Meta's verification handshake (GET with hub.mode=subscribe, hub.verify_token, hub.challenge):
 * the challenge echoed when the token is this channel's. Meta reaching it proves the URL works.
 */
export async function verifyWhatsAppSubscription(
  s: IngressDeps,
  channelId: string,
  q: { mode?: string; token?: string; challenge?: string },
): Promise<string> {
  const c = await whatsAppChannel(s, channelId);
  if (q.mode !== 'subscribe' || !q.challenge)
    throw new AppError('INVALID_REQUEST', 'Expected hub.mode=subscribe with hub.verify_token and hub.challenge.');
  if (!secretMatches(q.token, verifyTokenOf(s.secrets, c.id)))
    throw new AppError(
      'FORBIDDEN',
      "hub.verify_token is not this channel's verify token; copy it again from the channel.",
    );
  if (c.status !== 'connected') await markConnected(s, c);
  return q.challenge;
}

async function markConnected(s: IngressDeps, c: StoredChannel) {
  await s.channels.setStatus(c.id, c.secretsEnc, 'connected', null, s.now().toISOString());
}

export async function acceptWhatsApp(
  s: IngressDeps,
  channelId: string,
  raw: Buffer,
  signature: string | undefined,
): Promise<Accepted> {
  const c = await whatsAppChannel(s, channelId);
  const { appSecret } = JSON.parse(s.secrets.open(c.secretsEnc)) as { appSecret: string };
  if (!metaSignatureMatches(raw, signature, appSecret))
    throw new AppError(
      'UNAUTHORIZED',
      'X-Hub-Signature-256 is missing or is not the HMAC-SHA256 of this body with the app secret.',
    );
  const phoneNumberId = String(c.details.phoneNumberId);
  const { updates, skipped } = splitWhatsAppPayload(json(raw), phoneNumberId);
  if (skipped) s.log.warn({ channelId, skipped }, "a WhatsApp webhook carried another number's messages; not taken");
  const d = await runningAssistant(s, c.deploymentId);
  if (c.status !== 'connected') await markConnected(s, c);
  return updates.length ? store(s, c, d, updates) : { accepted: 0, repeated: 0 };
}

/** The channel id of a Telegram bot is its deployment's id: one bot per assistant (the spec's). */
export async function acceptTelegram(
  s: IngressDeps,
  channelId: string,
  raw: Buffer,
  secretToken: string | undefined,
): Promise<Accepted> {
  const d = UUID.test(channelId) ? await s.deployments.findById(channelId) : undefined;
  if (!d?.botTokenEnc) throw noChannel();
  if (!secretMatches(secretToken, telegramWebhookSecret(s.secrets, d.id)))
    throw new AppError('UNAUTHORIZED', "X-Telegram-Bot-Api-Secret-Token is missing or is not this bot's secret.");
  const update = json(raw) as { update_id?: unknown };
  if (typeof update !== 'object' || update === null || !Number.isSafeInteger(update.update_id))
    throw new AppError('INVALID_REQUEST', 'Not a Telegram update: it needs an integer "update_id".');
  const running = await runningAssistant(s, d.id);
  return store(s, { id: d.id, type: 'telegram' }, running, [{ key: String(update.update_id), body: update }]);
}

// The owner's verbs on an assistant's channels (DESIGN §9.1): list them (Telegram's bot too, read
// only), attach or replace WhatsApp, remove it. Each checks ownership first; any status is fine
// (a stopped assistant's channel waits for its next start). Credentials are sealed before they are
// stored and never opened here.
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { ChannelWrite, StoredChannel } from '../platform/store/channels.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Deployment } from '../domain/deployment.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import { withChannelClaim } from './channel-in-use.js';
import type { ChannelType, ChannelViewData, DiscordCredentialsInput, WhatsAppCredentialsInput } from './schemas.js';
import { checkDiscord, inviteUrl, WAITING_FOR_DISCORD } from './check-discord.js';
import { reportedChannels, withReported } from './worker-state.js';
import { verifyTokenOf, webhookUrlOf } from './webhook-address.js';
import { checkWhatsApp, WAITING_FOR_META } from './check-whatsapp.js';
import { workerChannels } from './worker-channels.js';

export type ChannelDeps = Pick<Services, 'channels' | 'deployments' | 'secrets' | 'now' | 'workers' | 'log'> & {
  publicBaseUrl: string;
  /** Absent: credentials are not checked with Meta before they are stored. */
  whatsappApiRoot?: string;
  /** DISCORD_API_ROOT; absent: a bot token is not checked before it is stored. */
  discordApiRoot?: string;
};

const STOPPED = 'The assistant is not running; this channel connects when it starts.';

function telegramView(d: Deployment): ChannelViewData {
  const running = wantsWorker(d.desired);
  const status = !running
    ? 'disabled'
    : d.status === 'active'
      ? 'connected'
      : d.status === 'failed'
        ? 'failed'
        : 'connecting';
  return {
    type: 'telegram',
    status,
    statusMessage: status === 'disabled' ? STOPPED : status === 'connected' ? null : d.statusMessage,
    details: {},
    updatedAt: d.updatedAt,
  };
}

export function channelView(s: Pick<ChannelDeps, 'secrets' | 'publicBaseUrl'>, d: Deployment, c: StoredChannel) {
  // Credentials Meta refused stay `failed` on a stopped assistant too: the owner has to fix them.
  const shown = wantsWorker(d.desired) || c.status === 'failed';
  return {
    type: c.type as ChannelType,
    status: shown ? (c.status as ChannelViewData['status']) : 'disabled',
    statusMessage: shown ? c.statusMessage : STOPPED,
    // Discord's bot connects out to the Gateway: no webhook to paste anywhere.
    details:
      c.type === 'discord'
        ? c.details
        : { ...c.details, webhookUrl: webhookUrlOf(s.publicBaseUrl, c), verifyToken: verifyTokenOf(s.secrets, c.id) },
    updatedAt: c.updatedAt,
  } satisfies ChannelViewData;
}

export async function listChannels(s: ChannelDeps, caller: Caller, id: string): Promise<ChannelViewData[]> {
  const d = await loadOwned(s, caller, id);
  const rows = await s.channels.list(d.id);
  // What the worker found running them: Discord connects out, so only its worker knows whether the
  // Gateway took the token and intents; a WhatsApp token Meta revoked since shows there too.
  const reported = rows.length ? await reportedChannels(s, d) : new Map();
  const attached = rows.map((c) => withReported(channelView(s, d, c), reported.get(c.type)));
  return d.botTokenEnc ? [telegramView(d), ...attached] : attached;
}

/** Telegram's bot is the spec's: set by activation's messengerBotToken and PATCH, not here. */
function refuseTelegram(type: ChannelType) {
  if (type === 'telegram')
    throw new AppError(
      'INVALID_REQUEST',
      'The Telegram channel is read-only here: its bot token is set by activation (messengerBotToken) and changed with PATCH /api/v1/assistants/{id}.',
    );
}

export async function putChannel(
  s: ChannelDeps,
  caller: Caller,
  id: string,
  type: ChannelType,
  body: WhatsAppCredentialsInput | DiscordCredentialsInput,
): Promise<ChannelViewData> {
  const d = await loadOwned(s, caller, id);
  refuseTelegram(type);
  if (type === 'discord') return putDiscord(s, caller, d, credentialsOf(type, body, 'botToken'));
  const wa = credentialsOf(type, body, 'phoneNumberId');
  return putWhatsApp(s, caller, d, wa);
}

/** The body the route took is either channel's: one that is not this type's is a 400 naming it. */
function credentialsOf<K extends 'botToken' | 'phoneNumberId'>(
  type: ChannelType,
  body: WhatsAppCredentialsInput | DiscordCredentialsInput,
  key: K,
): K extends 'botToken' ? DiscordCredentialsInput : WhatsAppCredentialsInput {
  if (!(key in body))
    throw new AppError(
      'INVALID_REQUEST',
      type === 'discord'
        ? 'A discord channel takes { "botToken", "applicationId" }.'
        : 'A whatsapp channel takes { "phoneNumberId", "accessToken", "appSecret" }.',
    );
  return body as never;
}

async function putDiscord(s: ChannelDeps, caller: Caller, d: Deployment, body: DiscordCredentialsInput) {
  const { botUsername, ...checked } = s.discordApiRoot
    ? await checkDiscord(s.discordApiRoot, body.botToken)
    : { status: 'connecting' as const, statusMessage: WAITING_FOR_DISCORD, botUsername: null };
  return storeChannel(s, caller, d, {
    type: 'discord',
    accountId: body.applicationId,
    details: { applicationId: body.applicationId, botUsername, inviteUrl: inviteUrl(body.applicationId) },
    secretsEnc: s.secrets.seal(JSON.stringify({ botToken: body.botToken })),
    ...checked,
  });
}

async function putWhatsApp(s: ChannelDeps, caller: Caller, d: Deployment, body: WhatsAppCredentialsInput) {
  const checked = s.whatsappApiRoot
    ? await checkWhatsApp(s.whatsappApiRoot, body.phoneNumberId, body.accessToken)
    : { status: 'connecting' as const, statusMessage: WAITING_FOR_META };
  return storeChannel(s, caller, d, {
    type: 'whatsapp',
    accountId: body.phoneNumberId,
    details: { phoneNumberId: body.phoneNumberId },
    secretsEnc: s.secrets.seal(JSON.stringify({ accessToken: body.accessToken, appSecret: body.appSecret })),
    // connecting until Meta's verification handshake reaches the webhook (ingress/), or failed
    // with what to fix when Meta refused the credentials.
    ...checked,
  });
}

/** Stores the channel unless another assistant holds its account, and hands it to the running worker. */
async function storeChannel(s: ChannelDeps, caller: Caller, d: Deployment, channel: ChannelWrite) {
  const claim = { type: channel.type, accountId: channel.accountId, self: d.id };
  const stored = await withChannelClaim(s, caller, claim, () => s.channels.put(d.id, channel, s.now().toISOString()));
  // The assistant was deleted while this request ran.
  if (!stored) throw notFound();
  await pushChannels(s, d);
  return channelView(s, d, stored);
}

/**
 * The assistant's channels beside Telegram, pushed whole to its running worker (DESIGN §9.1: live
 * within 5 s, its Telegram bot untouched). Stored either way: a worker that cannot be reached now
 * gets them with its next start (its spec).
 */
async function pushChannels(s: ChannelDeps, d: Deployment) {
  if (!wantsWorker(d.desired)) return;
  try {
    const list = workerChannels(s.secrets, await s.channels.list(d.id));
    const res = await s.workers.assistantCall(d.workerName, 'PUT', '/channels', list);
    if (res.status !== 200)
      s.log.warn({ deploymentId: d.id, status: res.status }, 'the worker did not take the channels');
  } catch (err) {
    s.log.warn({ deploymentId: d.id, err: (err as Error).message }, 'pushing channels to the worker failed');
  }
}

export async function removeChannel(s: ChannelDeps, caller: Caller, id: string, type: ChannelType) {
  const d = await loadOwned(s, caller, id);
  refuseTelegram(type);
  if (!(await s.channels.remove(d.id, type))) throw new AppError('NOT_FOUND', `This assistant has no ${type} channel.`);
  await pushChannels(s, d);
  return { success: true as const };
}

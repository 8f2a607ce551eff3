// The owner's verbs on an assistant's channels (DESIGN §9.1): list them (Telegram's bot too, read
// only), attach or replace WhatsApp, remove it. Each checks ownership first; any status is fine
// (a stopped assistant's channel waits for its next start). Credentials are sealed before they are
// stored and never opened here.
import { AppError, notFound } from '../platform/errors/app-error.js';
import type { StoredChannel } from '../platform/store/channels.js';
import { wantsWorker } from '../domain/lifecycle.js';
import type { Deployment } from '../domain/deployment.js';
import type { Caller, Services } from '../services.js';
import { loadOwned } from '../deployments/index.js';
import { withChannelClaim } from './channel-in-use.js';
import type { ChannelType, ChannelViewData, WhatsAppCredentialsInput } from './schemas.js';
import { verifyTokenOf, webhookUrlOf } from './webhook-address.js';
import { checkWhatsApp, WAITING_FOR_META } from './check-whatsapp.js';
import { workerChannels } from './worker-channels.js';

export type ChannelDeps = Pick<Services, 'channels' | 'deployments' | 'secrets' | 'now' | 'workers' | 'log'> & {
  publicBaseUrl: string;
  /** Absent: credentials are not checked with Meta before they are stored. */
  whatsappApiRoot?: string;
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
    details: {
      ...c.details,
      webhookUrl: webhookUrlOf(s.publicBaseUrl, c),
      verifyToken: verifyTokenOf(s.secrets, c.id),
    },
    updatedAt: c.updatedAt,
  } satisfies ChannelViewData;
}

export async function listChannels(s: ChannelDeps, caller: Caller, id: string): Promise<ChannelViewData[]> {
  const d = await loadOwned(s, caller, id);
  const rows = await s.channels.list(d.id);
  const failures = rows.length ? await workerFailures(s, d) : undefined;
  const attached = rows.map((c) => {
    const view = channelView(s, d, c);
    const failed = failures?.get(c.type);
    // What the worker found running it (a token Meta revoked since): shown over the stored state.
    return failed && view.status !== 'disabled' ? { ...view, status: 'failed' as const, statusMessage: failed } : view;
  });
  return d.botTokenEnc ? [telegramView(d), ...attached] : attached;
}

/** The channels the running worker reports failed, with its sentence; undefined when it cannot be asked. */
async function workerFailures(s: ChannelDeps, d: Deployment): Promise<Map<string, string> | undefined> {
  if (!wantsWorker(d.desired)) return undefined;
  try {
    const res = await s.workers.assistantCall(d.workerName, 'GET', '/health');
    const channels = (res.json as { channels?: unknown } | undefined)?.channels;
    // 503: the worker runs but is not ready, which a failed channel makes it.
    if ((res.status !== 200 && res.status !== 503) || !Array.isArray(channels)) return undefined;
    const out = new Map<string, string>();
    for (const c of channels as Array<{ type?: unknown; state?: unknown; error?: unknown }>)
      if (typeof c.type === 'string' && c.state === 'failed')
        out.set(c.type, typeof c.error === 'string' ? c.error.slice(0, 300) : 'The channel failed on the worker.');
    return out;
  } catch {
    return undefined;
  }
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
  body: WhatsAppCredentialsInput,
): Promise<ChannelViewData> {
  const d = await loadOwned(s, caller, id);
  refuseTelegram(type);
  const checked = s.whatsappApiRoot
    ? await checkWhatsApp(s.whatsappApiRoot, body.phoneNumberId, body.accessToken)
    : { status: 'connecting' as const, statusMessage: WAITING_FOR_META };
  const claim = { type: 'whatsapp', accountId: body.phoneNumberId, self: d.id };
  const stored = await withChannelClaim(s, caller, claim, () =>
    s.channels.put(
      d.id,
      {
        type: 'whatsapp',
        accountId: body.phoneNumberId,
        details: { phoneNumberId: body.phoneNumberId },
        secretsEnc: s.secrets.seal(JSON.stringify({ accessToken: body.accessToken, appSecret: body.appSecret })),
        // connecting until Meta's verification handshake reaches the webhook (ingress/), or failed
        // with what to fix when Meta refused the credentials.
        ...checked,
      },
      s.now().toISOString(),
    ),
  );
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

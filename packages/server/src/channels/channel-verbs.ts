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

export type ChannelDeps = Pick<Services, 'channels' | 'deployments' | 'secrets' | 'now'> & {
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
  const attached = (await s.channels.list(d.id)).map((c) => channelView(s, d, c));
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
  return channelView(s, d, stored);
}

export async function removeChannel(s: ChannelDeps, caller: Caller, id: string, type: ChannelType) {
  const d = await loadOwned(s, caller, id);
  refuseTelegram(type);
  if (!(await s.channels.remove(d.id, type))) throw new AppError('NOT_FOUND', `This assistant has no ${type} channel.`);
  return { success: true as const };
}

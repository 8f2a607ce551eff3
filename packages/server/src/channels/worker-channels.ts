// What an assistant's worker is sent about its channels beside Telegram (DESIGN §9.1): the stored
// rows with their credentials opened, as the worker spec's entries. Built only to go to that worker
// (its create body, or PUT …/channels when the owner changes one), never logged. The app secret
// stays with the control plane: only the ingress checks signatures.
import type { ChannelSpec } from '@berth/contracts/worker';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import type { StoredChannel } from '../platform/store/channels.js';
import type { Services } from '../services.js';

/** Each channel type's worker entry from its stored row (a type without one is not sent to workers). */
const ENTRY: Record<string, (secrets: Pick<SecretBox, 'open'>, r: StoredChannel) => ChannelSpec> = {
  whatsapp: (secrets, r) => {
    const { accessToken } = JSON.parse(secrets.open(r.secretsEnc)) as { accessToken: string };
    return { type: 'whatsapp', phoneNumberId: r.accountId, accessToken };
  },
  discord: (secrets, r) => {
    const { botToken } = JSON.parse(secrets.open(r.secretsEnc)) as { botToken: string };
    return { type: 'discord', botToken, applicationId: r.accountId };
  },
};

export function workerChannels(secrets: Pick<SecretBox, 'open'>, rows: readonly StoredChannel[]): ChannelSpec[] {
  return rows.flatMap((r): ChannelSpec[] => {
    // Credentials the platform refused when they were set stay with the control plane until the
    // owner sets new ones: a worker given them would only fail the channel.
    const entry = ENTRY[r.type];
    if (!entry || r.status === 'failed') return [];
    return [entry(secrets, r)];
  });
}

/** The channels a new worker starts with (its spec). */
export async function channelsForWorker(s: Pick<Services, 'channels' | 'secrets'>, deploymentId: string) {
  return workerChannels(s.secrets, await s.channels.list(deploymentId));
}

/** The same for a restoring pass's page, one read for all of them. */
export async function channelsForWorkers(s: Pick<Services, 'channels' | 'secrets'>, deploymentIds: readonly string[]) {
  const rows = deploymentIds.length ? await s.channels.listOf(deploymentIds) : new Map();
  return new Map<string, ChannelSpec[]>([...rows].map(([id, list]) => [id, workerChannels(s.secrets, list)]));
}

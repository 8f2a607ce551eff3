// The attached channels a worker runs with (DESIGN §9.1), as entries of the worker spec
// (@berth/contracts/worker): read from the store, credentials opened only to go to that worker
// (its create body, or the live PUT …/channels/{type}). A type without an entry here is not
// carried to workers yet.
import type { ChannelSpec } from '@berth/contracts/worker';
import type { SecretBox } from '../platform/crypto/secret-box.js';
import { ChannelRepo, type StoredChannel } from '../platform/store/channels.js';
import type { Services } from '../services.js';

const ENTRY: Record<string, (secrets: SecretBox, c: StoredChannel) => ChannelSpec> = {
  discord: (secrets, c) => ({
    type: 'discord',
    botToken: (JSON.parse(secrets.open(c.secretsEnc)) as { botToken: string }).botToken,
    applicationId: c.accountId,
  }),
};

/** The worker's entry for one stored channel; undefined for a type workers do not run yet. */
export const workerChannel = (secrets: SecretBox, c: StoredChannel) => ENTRY[c.type]?.(secrets, c);

export async function channelsForWorker(s: Pick<Services, 'db' | 'secrets'>, deploymentId: string) {
  const rows = await new ChannelRepo(s.db).list(deploymentId);
  return rows.flatMap((c) => workerChannel(s.secrets, c) ?? []);
}

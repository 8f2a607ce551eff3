// Assistants' channels beside Telegram (DESIGN §9.1) and the webhook updates they received. Only
// this file writes them; the services decide what a channel holds (channels/, ingress/).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AssistantChannelsTable, Database } from './schema.js';
import { holdDeployment, rowsByDeployment } from './deployment-rows.js';
import { deleteBefore, deleteMatching, findMatching, markOnce } from './matching.js';

export interface ChannelWrite {
  type: string;
  accountId: string;
  details: Record<string, unknown>;
  secretsEnc: string;
  status: string;
  statusMessage: string | null;
}

export interface StoredChannel extends ChannelWrite {
  id: string;
  deploymentId: string;
  createdAt: string;
  updatedAt: string;
}

export class ChannelRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async list(deploymentId: string): Promise<StoredChannel[]> {
    const rows = await this.db
      .selectFrom('assistant_channels')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('type')
      .execute();
    return rows.map(toChannel);
  }

  /** The channels of many deployments at once (a restoring pass's page), by deployment. */
  listOf(deploymentIds: readonly string[]): Promise<Map<string, StoredChannel[]>> {
    return rowsByDeployment(
      deploymentIds,
      (ids) =>
        this.db
          .selectFrom('assistant_channels')
          .selectAll()
          .where('deployment_id', 'in', ids)
          .orderBy('type')
          .execute(),
      toChannel,
    );
  }

  async findById(id: string): Promise<StoredChannel | undefined> {
    const row = await findMatching(this.db, 'assistant_channels', { id });
    return row && toChannel(row);
  }

  async findByAccount(type: string, accountId: string): Promise<StoredChannel | undefined> {
    const row = await findMatching(this.db, 'assistant_channels', { type, account_id: accountId });
    return row && toChannel(row);
  }

  /**
   * Creates the deployment's channel of this type or replaces its credentials (its id, and so its
   * webhook URL, stays). Undefined when the deployment is gone. The deployment's row is held first
   * (holdDeployment), so a delete either ran before or waits and removes this row too. Another
   * assistant holding the account: the unique index refuses (isUniqueViolation with
   * CHANNEL_ACCOUNT_INDEX).
   */
  async put(deploymentId: string, w: ChannelWrite, now: string): Promise<StoredChannel | undefined> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await holdDeployment(tx, deploymentId))) return undefined;
      const values = {
        account_id: w.accountId,
        details: JSON.stringify(w.details),
        secrets_enc: w.secretsEnc,
        status: w.status,
        status_message: w.statusMessage,
        updated_at: now,
      };
      const updated = await tx
        .updateTable('assistant_channels')
        .set(values)
        .where('deployment_id', '=', deploymentId)
        .where('type', '=', w.type)
        .returningAll()
        .executeTakeFirst();
      if (updated) return toChannel(updated);
      const row = { id: randomUUID(), deployment_id: deploymentId, type: w.type, created_at: now, ...values };
      await tx.insertInto('assistant_channels').values(row).execute();
      return toChannel(row);
    });
  }

  /** Whether there was one to remove. */
  async remove(deploymentId: string, type: string): Promise<boolean> {
    return deleteMatching(this.db, 'assistant_channels', { deployment_id: deploymentId, type });
  }

  /** Only while the row still holds these credentials: a PUT meanwhile keeps its own status. */
  async setStatus(id: string, secretsEnc: string, status: string, message: string | null, now: string) {
    await this.db
      .updateTable('assistant_channels')
      .set({ status, status_message: message, updated_at: now })
      .where('id', '=', id)
      .where('secrets_enc', '=', secretsEnc)
      .execute();
  }

  /** A deployment's delete takes its channels and their pending updates along (in its transaction). */
  async deleteAll(deploymentId: string): Promise<void> {
    await this.db.deleteFrom('channel_updates').where('deployment_id', '=', deploymentId).execute();
    await this.db.deleteFrom('assistant_channels').where('deployment_id', '=', deploymentId).execute();
  }
}

export interface StoredUpdate {
  id: string;
  channelId: string;
  deploymentId: string;
  type: string;
  updateKey: string;
  body: string;
  receivedAt: string;
  deliveredAt: string | null;
}

export class ChannelUpdateRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Stores one update a webhook accepted; undefined for a repeat of a stored one (the unique
   * (channel_id, update_key) index), which is skipped, not an error. Called in the transaction
   * that enqueues its delivery (ingress/accept-update.ts): both or neither survive a crash.
   */
  async add(u: Omit<StoredUpdate, 'id' | 'deliveredAt'>): Promise<string | undefined> {
    const row = await this.db
      .insertInto('channel_updates')
      .values({
        id: randomUUID(),
        channel_id: u.channelId,
        deployment_id: u.deploymentId,
        type: u.type,
        update_key: u.updateKey,
        body: u.body,
        received_at: u.receivedAt,
        delivered_at: null,
      })
      .onConflict((oc) => oc.columns(['channel_id', 'update_key']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return row?.id;
  }

  async get(id: string): Promise<StoredUpdate | undefined> {
    const r = await this.db.selectFrom('channel_updates').selectAll().where('id', '=', id).executeTakeFirst();
    return (
      r && {
        id: r.id,
        channelId: r.channel_id,
        deploymentId: r.deployment_id,
        type: r.type,
        updateKey: r.update_key,
        body: r.body,
        receivedAt: r.received_at,
        deliveredAt: r.delivered_at,
      }
    );
  }

  /** Updates received before `before`: past the window in which a platform sends one again. */
  async prune(before: string): Promise<number> {
    return deleteBefore(this.db, 'channel_updates', 'received_at', before);
  }

  async markDelivered(id: string, now: string): Promise<void> {
    await markOnce(this.db, 'channel_updates', { id }, 'delivered_at', now);
  }
}

function toChannel(r: AssistantChannelsTable): StoredChannel {
  return {
    id: r.id,
    deploymentId: r.deployment_id,
    type: r.type,
    accountId: r.account_id,
    details: JSON.parse(r.details),
    secretsEnc: r.secrets_enc,
    status: r.status,
    statusMessage: r.status_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

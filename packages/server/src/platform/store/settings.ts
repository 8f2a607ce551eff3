// Versions of assistants' settings documents. Only this file writes them; the service decides
// what a version holds (services/settings/).
import type { Kysely, Selectable } from 'kysely';
import type { AssistantSettingsTable, Database } from './schema.js';
import { isUniqueViolation } from './unique-violation.js';
import { holdDeployment, slices } from './deployment-rows.js';
import { findMatching } from './matching.js';

export interface StoredSettings {
  version: number;
  /** The document as stored (JSON parsed, not validated: the service checks it). */
  document: unknown;
  createdAt: string;
}

/** How many versions a deployment keeps (DESIGN §7.1). */
export const KEPT_VERSIONS = 10;

export class SettingsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async latest(deploymentId: string): Promise<StoredSettings | undefined> {
    const row = await this.db
      .selectFrom('assistant_settings')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toStored(row);
  }

  /**
   * The newest version of each of these deployments that has one (absent: never changed), one
   * query per 500 ids: a restoring pass reads a page's settings at once, not one round trip per
   * worker (100,000 of them on PostgreSQL at a control plane's start).
   */
  async latestOf(deploymentIds: readonly string[]): Promise<Map<string, StoredSettings>> {
    const out = new Map<string, StoredSettings>();
    for (const ids of slices(deploymentIds)) {
      const rows = await this.db
        .selectFrom('assistant_settings as s')
        .selectAll('s')
        .where('s.deployment_id', 'in', ids)
        .where((eb) =>
          eb(
            's.version',
            '=',
            eb
              .selectFrom('assistant_settings as t')
              .select((t) => t.fn.max('t.version').as('v'))
              .whereRef('t.deployment_id', '=', 's.deployment_id'),
          ),
        )
        .execute();
      for (const r of rows) out.set(r.deployment_id, toStored(r));
    }
    return out;
  }

  async get(deploymentId: string, version: number): Promise<StoredSettings | undefined> {
    const row = await findMatching(this.db, 'assistant_settings', { deployment_id: deploymentId, version });
    return row && toStored(row);
  }

  /** Newest first. */
  async list(deploymentId: string): Promise<StoredSettings[]> {
    const rows = await this.db
      .selectFrom('assistant_settings')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('version', 'desc')
      .limit(KEPT_VERSIONS)
      .execute();
    return rows.map(toStored);
  }

  /**
   * Stores `document` as the next version; `first` is written as version 1 when the deployment has
   * none yet (its implicit defaults); undefined when the deployment is gone. Two writers racing for one number: the primary key refuses
   * the second, which reads again and takes the next one. Older versions beyond the kept ten go.
   */
  async append(
    deploymentId: string,
    document: unknown,
    first: unknown,
    now: string,
  ): Promise<StoredSettings | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction().execute(async (tx) => {
          if (!(await holdDeployment(tx, deploymentId))) return undefined;
          const top = await tx
            .selectFrom('assistant_settings')
            .select('version')
            .where('deployment_id', '=', deploymentId)
            .orderBy('version', 'desc')
            .limit(1)
            .executeTakeFirst();
          let current = top ? Number(top.version) : 0;
          if (current === 0) {
            await tx
              .insertInto('assistant_settings')
              .values({ deployment_id: deploymentId, version: 1, document: JSON.stringify(first), created_at: now })
              .execute();
            current = 1;
          }
          const version = current + 1;
          await tx
            .insertInto('assistant_settings')
            .values({ deployment_id: deploymentId, version, document: JSON.stringify(document), created_at: now })
            .execute();
          await tx
            .deleteFrom('assistant_settings')
            .where('deployment_id', '=', deploymentId)
            .where('version', '<=', version - KEPT_VERSIONS)
            .execute();
          return { version, document, createdAt: now };
        });
      } catch (err) {
        if (attempt < 20 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  async deleteAll(deploymentId: string): Promise<void> {
    await this.db.deleteFrom('assistant_settings').where('deployment_id', '=', deploymentId).execute();
  }
}

function toStored(r: Selectable<AssistantSettingsTable>): StoredSettings {
  return { version: Number(r.version), document: JSON.parse(r.document), createdAt: r.created_at };
}

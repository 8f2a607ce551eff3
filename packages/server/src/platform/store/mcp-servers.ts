// An assistant's MCP servers (DESIGN §9.2). Only this file writes them; the service seals the
// headers before they get here and opens them only to send them to the assistant's own worker.
import type { Kysely, Selectable } from 'kysely';
import type { Database, McpServersTable } from './schema.js';
import { holdDeployment, rowsByDeployment } from './deployment-rows.js';
import { deleteMatching } from './matching.js';

export interface StoredMcpServer {
  name: string;
  url: string;
  headersEnc: string | null;
  enabledTools: string[] | null;
  createdAt: string;
  updatedAt: string;
}

export class McpServersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** In name order. */
  async list(deploymentId: string): Promise<StoredMcpServer[]> {
    const rows = await this.db
      .selectFrom('mcp_servers')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .orderBy('name')
      .execute();
    return rows.map(toStored);
  }

  /**
   * Creates or replaces one server; 'full' when it would be one more than `max`, 'gone' when the
   * deployment was deleted meanwhile. The deployment's row is held first, so two owners adding
   * a sixth server at once cannot both pass the count.
   */
  async put(
    deploymentId: string,
    server: { name: string; url: string; headersEnc: string | null; enabledTools: string[] | null },
    max: number,
    now: string,
  ): Promise<'stored' | 'full' | 'gone'> {
    return this.db.transaction().execute(async (tx) => {
      if (!(await holdDeployment(tx, deploymentId))) return 'gone';
      const existing = await tx
        .selectFrom('mcp_servers')
        .select(['name', 'created_at'])
        .where('deployment_id', '=', deploymentId)
        .execute();
      const same = existing.find((r) => r.name === server.name);
      if (!same && existing.length >= max) return 'full';
      const values = {
        url: server.url,
        headers_enc: server.headersEnc,
        enabled_tools: server.enabledTools ? JSON.stringify(server.enabledTools) : null,
        updated_at: now,
      };
      if (same)
        await tx
          .updateTable('mcp_servers')
          .set(values)
          .where('deployment_id', '=', deploymentId)
          .where('name', '=', server.name)
          .execute();
      else
        await tx
          .insertInto('mcp_servers')
          .values({ deployment_id: deploymentId, name: server.name, created_at: now, ...values })
          .execute();
      return 'stored';
    });
  }

  /** The servers of each of these deployments that has any, one query per 500 ids (a restoring pass's page). */
  listOf(deploymentIds: readonly string[]): Promise<Map<string, StoredMcpServer[]>> {
    return rowsByDeployment(
      deploymentIds,
      (ids) =>
        this.db.selectFrom('mcp_servers').selectAll().where('deployment_id', 'in', ids).orderBy('name').execute(),
      toStored,
    );
  }

  async remove(deploymentId: string, name: string): Promise<boolean> {
    return deleteMatching(this.db, 'mcp_servers', { deployment_id: deploymentId, name });
  }

  async deleteAll(deploymentId: string): Promise<void> {
    await this.db.deleteFrom('mcp_servers').where('deployment_id', '=', deploymentId).execute();
  }
}

function toStored(r: Selectable<McpServersTable>): StoredMcpServer {
  return {
    name: r.name,
    url: r.url,
    headersEnc: r.headers_enc,
    enabledTools: r.enabled_tools ? (JSON.parse(r.enabled_tools) as string[]) : null,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

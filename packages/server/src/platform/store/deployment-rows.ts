// What the repos of deployments' rows share: holding a deployment while its settings, channels or
// MCP servers are written, and reading many deployments' rows a slice of ids at a time.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Ids in one `IN (…)`: a restoring pass asks for a page of thousands; both databases take 500 easily. */
const IDS_PER_QUERY = 500;

/** `ids` a query's worth at a time. */
export function* slices<T>(ids: readonly T[]): Generator<T[]> {
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) yield ids.slice(i, i + IDS_PER_QUERY);
}

/** Each of these deployments' rows that has any, `read` a slice of ids at a time, in `read`'s order. */
export async function rowsByDeployment<R extends { deployment_id: string }, T>(
  deploymentIds: readonly string[],
  read: (ids: string[]) => Promise<R[]>,
  to: (row: R) => T,
): Promise<Map<string, T[]>> {
  const out = new Map<string, T[]>();
  for (const ids of slices(deploymentIds)) {
    for (const r of await read(ids)) {
      const list = out.get(r.deployment_id) ?? [];
      list.push(to(r));
      out.set(r.deployment_id, list);
    }
  }
  return out;
}

/**
 * Holds the deployment's row for the rest of the transaction (a no-op UPDATE: a row lock on
 * PostgreSQL, the write lock on SQLite), so a delete either ran before (nothing to add to) or
 * waits and removes what this one writes too; false when the deployment is gone.
 */
export async function holdDeployment(tx: Kysely<Database>, deploymentId: string): Promise<boolean> {
  const held = await tx
    .updateTable('deployments')
    .set({ id: deploymentId })
    .where('id', '=', deploymentId)
    .executeTakeFirst();
  return Number(held.numUpdatedRows) > 0;
}

// The Responses API's stored responses (migration 0030): written when a response with `store`
// completes, read by GET /responses/{id} and to check a previous_response_id. Every read is by
// deployment and id, so another assistant's response is not found (404), never served.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

import { STORED_RESPONSES_KEPT } from './limits.js';

export class StoredResponseRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly kept = STORED_RESPONSES_KEPT,
  ) {}

  /** Keeps `body` (the response object, JSON) and drops what falls past the deployment's newest `kept`. */
  async keep(deploymentId: string, id: string, body: string, at: Date): Promise<void> {
    const deployment = deploymentId.toLowerCase();
    await this.db
      .insertInto('stored_responses')
      .values({ deployment_id: deployment, id, created_at: at.toISOString(), body })
      .onConflict((oc) => oc.columns(['deployment_id', 'id']).doNothing())
      .execute();
    // Older than the kept-th newest: one index range read, whatever the deployment holds.
    const oldestKept = this.db
      .selectFrom('stored_responses')
      .select('created_at')
      .where('deployment_id', '=', deployment)
      .orderBy('created_at', 'desc')
      .limit(1)
      .offset(this.kept - 1);
    await this.db
      .deleteFrom('stored_responses')
      .where('deployment_id', '=', deployment)
      .where('created_at', '<', sql<string>`(${oldestKept})`)
      .execute();
  }

  /** The stored response of this deployment with this id, as JSON. */
  async find(deploymentId: string, id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('stored_responses')
      .select('body')
      .where('deployment_id', '=', deploymentId.toLowerCase())
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.body;
  }
}

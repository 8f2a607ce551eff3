// Alert causes: one row per cause, claimed atomically so one alert goes out per cause and window
// across every replica (ops/alerts.ts).
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export class AlertRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** True when `cause` was not sent since `cutoff` (then it is marked sent at `now`). */
  async claim(cause: string, now: Date, cutoff: Date): Promise<boolean> {
    const res = await this.db
      .insertInto('alert_causes')
      .values({ cause, last_sent_at: now.toISOString() })
      .onConflict((oc) =>
        oc
          .column('cause')
          .doUpdateSet({ last_sent_at: now.toISOString() })
          .where(sql.ref('alert_causes.last_sent_at'), '<', cutoff.toISOString()),
      )
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }
}

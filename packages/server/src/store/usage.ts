// The usage ledger and the allowance of each billing period. Every spend check is one conditional
// UPDATE on the period's row, so concurrent callers (on any replica) cannot overshoot it.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** PostgreSQL returns bigint columns as strings. */
const num = (v: number | string | null | undefined): number => (v === null || v === undefined ? 0 : Number(v));

export interface PeriodKey {
  deploymentId: string;
  periodEnd: string;
}

export interface PeriodState {
  allowanceNano: number | null;
  reservedNano: number;
  usedNano: number;
}

export interface UsageEntry {
  source: 'gateway' | 'proxy';
  model: string;
  promptTokens: number;
  completionTokens: number;
  costNano: number;
}

export class UsageRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Creates the period's row with its allowance when it is the first use of the period. */
  async ensurePeriod(k: PeriodKey, allowanceNano: number | null): Promise<void> {
    await this.db
      .insertInto('usage_periods')
      .values({ deployment_id: k.deploymentId, period_end: k.periodEnd, allowance_nano: allowanceNano })
      .onConflict((oc) => oc.columns(['deployment_id', 'period_end']).doNothing())
      .execute();
  }

  async setAllowance(k: PeriodKey, allowanceNano: number | null): Promise<void> {
    await this.db
      .updateTable('usage_periods')
      .set({ allowance_nano: allowanceNano })
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .execute();
  }

  async period(k: PeriodKey): Promise<PeriodState | undefined> {
    const row = await this.db
      .selectFrom('usage_periods')
      .selectAll()
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .executeTakeFirst();
    return (
      row && {
        allowanceNano: row.allowance_nano === null ? null : num(row.allowance_nano),
        reservedNano: num(row.reserved_nano),
        usedNano: num(row.used_nano),
      }
    );
  }

  /** Holds `amount` against the allowance; false when it does not fit (nothing changes then). */
  async reserve(k: PeriodKey, amountNano: number): Promise<boolean> {
    const res = await this.db
      .updateTable('usage_periods')
      .set({ reserved_nano: sql`reserved_nano + ${amountNano}` })
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .where((eb) =>
        eb.or([
          eb('allowance_nano', 'is', null),
          eb(sql`used_nano + reserved_nano + ${amountNano}`, '<=', eb.ref('allowance_nano')),
        ]),
      )
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Releases a reservation and books what the reply really cost, with its ledger row. */
  async settle(k: PeriodKey, reservedNano: number, entry: UsageEntry | undefined, at: Date): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('usage_periods')
        .set({
          reserved_nano: sql`CASE WHEN reserved_nano > ${reservedNano} THEN reserved_nano - ${reservedNano} ELSE 0 END`,
          used_nano: sql`used_nano + ${entry?.costNano ?? 0}`,
        })
        .where('deployment_id', '=', k.deploymentId)
        .where('period_end', '=', k.periodEnd)
        .execute();
      if (entry) {
        await tx
          .insertInto('usage_records')
          .values({
            id: randomUUID(),
            deployment_id: k.deploymentId,
            period_end: k.periodEnd,
            day: at.toISOString().slice(0, 10),
            source: entry.source,
            model: entry.model.slice(0, 255),
            prompt_tokens: entry.promptTokens,
            completion_tokens: entry.completionTokens,
            cost_nano: entry.costNano,
            created_at: at.toISOString(),
          })
          .execute();
      }
    });
  }

  /** True once per period: the first caller to see the allowance exhausted tells the owner. */
  async claimExhaustedNotice(k: PeriodKey): Promise<boolean> {
    const res = await this.db
      .updateTable('usage_periods')
      .set({ exhausted_notified: 1 })
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .where('exhausted_notified', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async daily(k: PeriodKey) {
    const rows = await this.db
      .selectFrom('usage_records')
      .select((eb) => [
        'day',
        eb.fn.sum<number | string>('prompt_tokens').as('prompt'),
        eb.fn.sum<number | string>('completion_tokens').as('completion'),
        eb.fn.sum<number | string>('cost_nano').as('cost'),
        eb.fn.countAll<number | string>().as('replies'),
      ])
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .groupBy('day')
      .orderBy('day')
      .execute();
    return rows.map((r) => ({
      day: r.day,
      promptTokens: num(r.prompt),
      completionTokens: num(r.completion),
      costNano: num(r.cost),
      replies: num(r.replies),
    }));
  }

  async cap(deploymentId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('usage_limits')
      .select('monthly_cap_nano')
      .where('deployment_id', '=', deploymentId)
      .executeTakeFirst();
    return row?.monthly_cap_nano === null || row?.monthly_cap_nano === undefined ? null : num(row.monthly_cap_nano);
  }

  async setCap(deploymentId: string, capNano: number | null, at: Date): Promise<void> {
    await this.db
      .insertInto('usage_limits')
      .values({ deployment_id: deploymentId, monthly_cap_nano: capNano, updated_at: at.toISOString() })
      .onConflict((oc) =>
        oc.column('deployment_id').doUpdateSet({ monthly_cap_nano: capNano, updated_at: at.toISOString() }),
      )
      .execute();
  }
}

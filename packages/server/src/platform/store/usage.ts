// The usage ledger and the allowance of each billing period. Every spend check is one conditional
// UPDATE on the period's row, so concurrent callers (on any replica) cannot overshoot it.
import { v7 as timeOrderedId } from 'uuid';
import { sql, type CompiledQuery, type Insertable, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { directTransaction, prepareQuery } from './prepared.js';
import type { Dialect } from './dialect.js';

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
  source: 'gateway' | 'proxy' | 'search';
  model: string;
  promptTokens: number;
  completionTokens: number;
  costNano: number;
  /** Who the call answered, as the worker named them (OpenAI's `user`); absent when unknown. */
  endUser?: string;
}

/** How the owner's usage view groups a period's records (DESIGN §9.3). */
export type UsageGrouping = 'day' | 'model' | 'endUser';

const GROUP_COLUMN = { day: 'day', model: 'model', endUser: 'end_user' } as const;

/** One group of a period's records: `key` is the day, the model or the end user (null: unknown). */
export interface UsageGroup {
  key: string | null;
  replies: number;
  promptTokens: number;
  completionTokens: number;
  costNano: number;
}

/** One reply to settle: its hold on `key` released and, with `entry`, its cost booked. */
export interface Settlement {
  key: PeriodKey;
  reservedNano: number;
  entry: UsageEntry | undefined;
  at: Date;
  /** Its place in this process's usage journal (billing/usage-journal.ts), when journaled. */
  seq?: number;
}

/** A journal booked up to `seq`: written with the settlements, in their transaction. */
export interface JournalMark {
  journal: string;
  seq: number;
}

export class UsageRepo {
  // Every metered chat and model call runs these: compiled once (see prepared.ts).
  private readonly reserveQuery;
  private readonly periodQuery;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {
    // The reservations of one event-loop turn share a commit on SQLite (turn-batch.ts); PostgreSQL
    // and a transaction's repositories run each at once.
    this.reserveQuery = prepareQuery(
      db,
      (m) =>
        db
          .updateTable('usage_periods')
          .set({ reserved_nano: sql`reserved_nano + ${m.int(2)}` })
          .where('deployment_id', '=', m.text(0))
          .where('period_end', '=', m.text(1))
          .where((eb) =>
            eb.or([
              eb('allowance_nano', 'is', null),
              eb(sql`used_nano + reserved_nano + ${m.int(2)}`, '<=', eb.ref('allowance_nano')),
            ]),
          ),
      { sharedCommit: true },
    );
    this.periodQuery = prepareQuery(db, (m) =>
      db
        .selectFrom('usage_periods')
        .selectAll()
        .where('deployment_id', '=', m.text(0))
        .where('period_end', '=', m.text(1)),
    );
  }

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
    const row = (await this.periodQuery(k.deploymentId, k.periodEnd)).rows[0];
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
    const res = await this.reserveQuery(k.deploymentId, k.periodEnd, amountNano);
    return Number(res.numAffectedRows) === 1;
  }

  /**
   * Releases reservations and books what the replies really cost, with their ledger rows. Settles
   * many replies in one transaction: the periods' figures read (locked on PostgreSQL), one UPDATE
   * per period (the holds released and the costs booked, summed) and one multi-row INSERT of their
   * ledger rows.
   *
   * A metered model call (source 'gateway') is booked at most at its hold plus what no one holds
   * of the allowance: the operator's router cannot push a period past its allowance whatever usage
   * it reports. A byok reply (source 'proxy') is the owner's own spend on their own key and is
   * booked as reported. Answers the nano-USD reported but not booked (0 when none was bounded).
   */
  async settleMany(items: Settlement[], mark?: JournalMark): Promise<number> {
    if (!items.length) return 0;
    const pid = (k: PeriodKey) => `${k.deploymentId}|${k.periodEnd}`;
    const keys = new Map<string, PeriodKey>();
    for (const it of items) keys.set(pid(it.key), it.key);
    // The deployments first, as a delete takes them (then cascades to the usage rows): on
    // PostgreSQL in the same lock order, so a delete and a settlement wait for each other instead
    // of deadlocking. A deployment deleted meanwhile has nothing left to settle; its replies are
    // dropped instead of failing the whole batch on the ledger's foreign key.
    const ids = [...new Set(items.map((it) => it.key.deploymentId))];
    let alive = this.db.selectFrom('deployments').select('id').where('id', 'in', ids);
    if (this.dialect === 'postgres') alive = alive.forKeyShare();
    const aliveQuery = alive.compile();
    let periodsOf = this.db
      .selectFrom('usage_periods')
      .select(['deployment_id', 'period_end', 'allowance_nano', 'used_nano', 'reserved_nano'])
      .where((eb) =>
        eb.or(
          [...keys.values()].map((k) =>
            eb.and([eb('deployment_id', '=', k.deploymentId), eb('period_end', '=', k.periodEnd)]),
          ),
        ),
      );
    if (this.dialect === 'postgres') periodsOf = periodsOf.forUpdate();
    const periodsQuery = periodsOf.compile();
    let unbooked = 0;
    const writes = (
      live: Set<string>,
      found: Array<{
        deployment_id: string;
        period_end: string;
        allowance_nano: number | string | null;
        used_nano: number | string;
        reserved_nano: number | string;
      }>,
    ): CompiledQuery[] => {
      // Room no hold covers, per period; a released hold adds its own room back.
      const free = new Map<string, number>();
      for (const r of found)
        free.set(
          `${r.deployment_id}|${r.period_end}`,
          r.allowance_nano === null
            ? Number.POSITIVE_INFINITY
            : num(r.allowance_nano) - num(r.used_nano) - num(r.reserved_nano),
        );
      const periods = new Map<string, { key: PeriodKey; released: number; cost: number }>();
      const ledger: Array<Insertable<Database['usage_records']>> = [];
      unbooked = 0;
      for (const { key, reservedNano, entry, at } of items) {
        if (!live.has(key.deploymentId)) continue;
        const k = pid(key);
        const p = periods.get(k) ?? { key, released: 0, cost: 0 };
        periods.set(k, p);
        p.released += reservedNano;
        let room = (free.get(k) ?? 0) + reservedNano;
        if (entry) {
          const reported = entry.costNano;
          const booked =
            entry.source === 'gateway'
              ? Math.min(reported, Math.max(Math.min(reported, reservedNano), room))
              : reported;
          unbooked += reported - booked;
          room -= booked;
          p.cost += booked;
          ledger.push({
            // Time-ordered: a batch's rows land on the primary key's last page, not one random page
            // each (a random id made a settlement's rows 2.5x as dear to write on 100k rows).
            id: timeOrderedId(),
            deployment_id: key.deploymentId,
            period_end: key.periodEnd,
            day: at.toISOString().slice(0, 10),
            source: entry.source,
            model: entry.model.slice(0, 255),
            prompt_tokens: entry.promptTokens,
            completion_tokens: entry.completionTokens,
            cost_nano: booked,
            created_at: at.toISOString(),
            end_user: entry.endUser?.slice(0, 255) ?? null,
          });
        }
        free.set(k, room);
      }
      const out: CompiledQuery[] = [];
      for (const { key, released, cost } of periods.values()) {
        out.push(
          this.db
            .updateTable('usage_periods')
            .set({
              reserved_nano: sql`CASE WHEN reserved_nano > ${released} THEN reserved_nano - ${released} ELSE 0 END`,
              used_nano: sql`used_nano + ${cost}`,
            })
            .where('deployment_id', '=', key.deploymentId)
            .where('period_end', '=', key.periodEnd)
            .compile(),
        );
      }
      // 11 parameters a row: 200 rows stay far below either database's parameter limit.
      for (let i = 0; i < ledger.length; i += 200)
        out.push(
          this.db
            .insertInto('usage_records')
            .values(ledger.slice(i, i + 200))
            .compile(),
        );
      if (mark)
        out.push(
          this.db
            .insertInto('usage_journal_marks')
            .values({ journal: mark.journal, seq: mark.seq })
            .onConflict((oc) => oc.column('journal').doUpdateSet({ seq: mark.seq }))
            .compile(),
        );
      return out;
    };
    const liveOf = (found: Array<{ id: string }>) => new Set(found.map((r) => r.id));
    type PeriodRow = Parameters<typeof writes>[1][number];
    // On SQLite, one synchronous transaction: requests meanwhile neither wait on it nor slip into it.
    const now = directTransaction(this.db, (run) => {
      const live = liveOf(run(aliveQuery).rows as Array<{ id: string }>);
      for (const q of writes(live, run(periodsQuery).rows as PeriodRow[])) run(q);
    });
    if (now) return unbooked;
    await this.db.transaction().execute(async (tx) => {
      const live = liveOf((await tx.executeQuery(aliveQuery)).rows as Array<{ id: string }>);
      const found = (await tx.executeQuery(periodsQuery)).rows as PeriodRow[];
      for (const q of writes(live, found)) await tx.executeQuery(q);
    });
    return unbooked;
  }

  /** How far `journal` is booked (0 when nothing of it is). */
  async journalMark(journal: string): Promise<number> {
    const row = await this.db
      .selectFrom('usage_journal_marks')
      .select('seq')
      .where('journal', '=', journal)
      .executeTakeFirst();
    return row ? num(row.seq) : 0;
  }

  /** A replayed journal's file is gone: its mark is no longer needed. */
  async forgetJournal(journal: string): Promise<void> {
    await this.db.deleteFrom('usage_journal_marks').where('journal', '=', journal).execute();
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

  /** What the period's answered web searches cost (the operator's spend on a byok deployment). */
  async searchSpentNano(k: PeriodKey): Promise<number> {
    const row = await this.db
      .selectFrom('usage_records')
      .select((eb) => eb.fn.sum<number | string>('cost_nano').as('cost'))
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .where('source', '=', 'search')
      .executeTakeFirst();
    return num(row?.cost);
  }

  /** The period's records summed per day, model or end user; days in order, the others costliest first. */
  async grouped(k: PeriodKey, by: UsageGrouping, limit = 1000): Promise<UsageGroup[]> {
    const column = GROUP_COLUMN[by];
    const rows = await this.db
      .selectFrom('usage_records')
      .select((eb) => [
        eb.ref(column).as('key'),
        eb.fn.sum<number | string>('prompt_tokens').as('prompt'),
        eb.fn.sum<number | string>('completion_tokens').as('completion'),
        eb.fn.sum<number | string>('cost_nano').as('cost'),
        eb.fn.countAll<number | string>().as('replies'),
      ])
      .where('deployment_id', '=', k.deploymentId)
      .where('period_end', '=', k.periodEnd)
      .groupBy(column)
      .$call((q) => (by === 'day' ? q.orderBy('day') : q.orderBy('cost', 'desc').orderBy(column)))
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      key: r.key as string | null,
      promptTokens: num(r.prompt),
      completionTokens: num(r.completion),
      costNano: num(r.cost),
      replies: num(r.replies),
    }));
  }

  /** The period's records summed per day, in order (`grouped` by day; a period has at most 31). */
  async daily(k: PeriodKey) {
    return (await this.grouped(k, 'day')).map(({ key, ...sums }) => ({ day: key as string, ...sums }));
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

// Where the Kubernetes backend's shared placement put each assistant: worker name → host ordinal.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export class WorkerPlacementRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async hostOf(workerName: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('worker_placements')
      .select('host')
      .where('worker_name', '=', workerName)
      .executeTakeFirst();
    return row?.host;
  }

  async place(workerName: string, host: number, at: Date): Promise<void> {
    await this.db
      .insertInto('worker_placements')
      .values({ worker_name: workerName, host, placed_at: at.toISOString() })
      .onConflict((oc) => oc.column('worker_name').doUpdateSet({ host, placed_at: at.toISOString() }))
      .execute();
  }

  async remove(workerName: string): Promise<void> {
    await this.db.deleteFrom('worker_placements').where('worker_name', '=', workerName).execute();
  }

  /** Assistants per host ordinal. */
  async load(): Promise<Map<number, number>> {
    const rows = await this.db
      .selectFrom('worker_placements')
      .select(['host', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('host')
      .execute();
    return new Map(rows.map((r) => [Number(r.host), Number(r.n)]));
  }

  async all(): Promise<{ workerName: string; host: number }[]> {
    const rows = await this.db
      .selectFrom('worker_placements')
      .select(['worker_name', 'host'])
      .orderBy('worker_name')
      .execute();
    return rows.map((r) => ({ workerName: r.worker_name, host: Number(r.host) }));
  }

  /** The operator's placement for one assistant, if they chose one. */
  async choiceOf(workerName: string): Promise<'shared' | 'dedicated' | undefined> {
    const row = await this.db
      .selectFrom('placement_choices')
      .select('placement')
      .where('worker_name', '=', workerName)
      .executeTakeFirst();
    return row?.placement === 'shared' || row?.placement === 'dedicated' ? row.placement : undefined;
  }

  /** Records the operator's choice; undefined goes back to the default. */
  async choose(workerName: string, placement: 'shared' | 'dedicated' | undefined, at: Date): Promise<void> {
    if (!placement) {
      await this.db.deleteFrom('placement_choices').where('worker_name', '=', workerName).execute();
      return;
    }
    await this.db
      .insertInto('placement_choices')
      .values({ worker_name: workerName, placement, chosen_at: at.toISOString() })
      .onConflict((oc) => oc.column('worker_name').doUpdateSet({ placement, chosen_at: at.toISOString() }))
      .execute();
  }
}

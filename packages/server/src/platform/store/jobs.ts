// The job queue in the store. Claiming uses FOR UPDATE SKIP LOCKED on PostgreSQL so replicas
// never take the same row; SQLite has one writer, so a plain UPDATE ... RETURNING is enough.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './dialect.js';

/** Each kind of job and the payload its handler reads (stored as JSON in `jobs.payload`). */
export interface JobKinds {
  /** Deploy one generation; give up (failed) after the deadline. */
  deploy: { deadline?: string };
  /** Deliver one signed callback message, in sequence order per deployment. */
  callback: {
    url: string;
    userId: string;
    /** The organization's deployments are signed with the organization's secret (decision 0026). */
    organizationId?: string | null;
    sequence: number;
    event: Record<string, unknown>;
  };
  /** Cancel a Stripe subscription (the deployment row may be gone). */
  cancel_subscription: { subscriptionId: string };
  /** Stop a deployment whose subscription ended. */
  stop: { reason?: string };
  /** Make an unpaid checkout unusable, until it expires by itself. */
  expire_checkout: { checkoutId: string; expiresBy: string };
  /** Tell the operator's receiver about one cause (ops/alerts.ts), retried like a callback. */
  alert: { cause: string; kind: string; message: string; at: string };
  /** Hand one accepted webhook update (channel_updates row) to its assistant's worker (ingress/). */
  channel_update: { updateId: string };
}

export type JobKind = keyof JobKinds;

/** A claimed job; `Job<'callback'>` is what the callback handler receives. */
export interface Job<K extends JobKind = JobKind> {
  id: string;
  kind: K;
  deploymentId: string | null;
  generation: number | null;
  payload: JobKinds[K];
  attempts: number;
}

export interface NewJob {
  kind: JobKind;
  deploymentId?: string;
  generation?: number;
  payload?: unknown;
  runAt?: Date;
}

export class JobQueue {
  /**
   * Called after an enqueue so the runner looks at once instead of at its next tick (a queue over
   * a transaction calls it on commit: repos.ts).
   */
  onEnqueue: (() => void) | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly now: () => Date,
  ) {}

  async enqueue(job: NewJob): Promise<string> {
    const id = randomUUID();
    const now = this.now().toISOString();
    await this.db
      .insertInto('jobs')
      .values({
        id,
        kind: job.kind,
        deployment_id: job.deploymentId ?? null,
        generation: job.generation ?? null,
        payload: JSON.stringify(job.payload ?? {}),
        status: 'pending',
        attempts: 0,
        run_at: (job.runAt ?? this.now()).toISOString(),
        locked_by: null,
        locked_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    this.onEnqueue?.();
    return id;
  }

  /** Takes up to `limit` due jobs for `owner`, leased for `leaseMs`. */
  async claim(owner: string, limit: number, leaseMs: number): Promise<Job[]> {
    const now = this.now();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const lock = this.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
    const res = await sql<{
      id: string;
      kind: JobKind;
      deployment_id: string | null;
      generation: number | null;
      payload: string;
      attempts: number;
    }>`
      UPDATE jobs SET locked_by = ${owner}, locked_until = ${until}, attempts = attempts + 1, updated_at = ${nowIso}
      WHERE id IN (
        SELECT id FROM jobs
        WHERE status = 'pending' AND run_at <= ${nowIso} AND (locked_until IS NULL OR locked_until < ${nowIso})
        ORDER BY run_at LIMIT ${limit} ${lock})
      RETURNING id, kind, deployment_id, generation, payload, attempts`.execute(this.db);
    return res.rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      deploymentId: r.deployment_id,
      generation: r.generation === null ? null : Number(r.generation),
      payload: JSON.parse(r.payload),
      attempts: Number(r.attempts),
    }));
  }

  /**
   * The job `id` while `owner` still holds it: once its lease ran out and another runner claimed
   * it, what the first runner writes must change nothing.
   */
  private held(id: string, owner: string) {
    return this.db.updateTable('jobs').where('id', '=', id).where('locked_by', '=', owner);
  }

  /** Extends a lease while a long job (waiting for a worker to become ready) runs. */
  async heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean> {
    const res = await this.held(id, owner)
      .set({ locked_until: new Date(this.now().getTime() + leaseMs).toISOString() })
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async complete(id: string, owner: string): Promise<void> {
    await this.held(id, owner)
      .set({ status: 'done', locked_until: null, updated_at: this.now().toISOString() })
      .execute();
  }

  async retry(id: string, owner: string, runAt: Date, error: string): Promise<void> {
    await this.held(id, owner)
      .set({
        run_at: runAt.toISOString(),
        locked_by: null,
        locked_until: null,
        last_error: error.slice(0, 2000),
        updated_at: this.now().toISOString(),
      })
      .execute();
  }

  /** Hands the job back to run at `runAt`, taking back the attempt its claim counted. */
  async defer(id: string, owner: string, runAt: Date): Promise<void> {
    await this.held(id, owner)
      .set((eb) => ({
        run_at: runAt.toISOString(),
        locked_by: null,
        locked_until: null,
        attempts: eb('attempts', '-', 1),
        updated_at: this.now().toISOString(),
      }))
      .execute();
  }

  async fail(id: string, owner: string, error: string): Promise<void> {
    await this.held(id, owner)
      .set({
        status: 'failed',
        locked_until: null,
        last_error: error.slice(0, 2000),
        updated_at: this.now().toISOString(),
      })
      .execute();
  }

  /** Jobs due now and not leased, and how long the oldest of them has waited (metrics, readiness). */
  async backlog(): Promise<{ queued: number; oldestAgeSeconds: number }> {
    const nowIso = this.now().toISOString();
    const row = await this.db
      .selectFrom('jobs')
      .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('run_at').as('oldest')])
      .where('status', '=', 'pending')
      .where('run_at', '<=', nowIso)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', nowIso)]))
      .executeTakeFirst();
    const oldest = row?.oldest ? Date.parse(String(row.oldest)) : Number.NaN;
    return {
      queued: Number(row?.n ?? 0),
      oldestAgeSeconds: Number.isFinite(oldest) ? Math.max(0, (this.now().getTime() - oldest) / 1000) : 0,
    };
  }

  /** Whether a job of this kind was ever queued for this generation (pending, running or finished). */
  async existsFor(deploymentId: string, kind: JobKind, generation: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('jobs')
      .select('id')
      .where('deployment_id', '=', deploymentId)
      .where('kind', '=', kind)
      .where('generation', '=', generation)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async pendingFor(deploymentId: string, kind: JobKind) {
    return this.db
      .selectFrom('jobs')
      .selectAll()
      .where('deployment_id', '=', deploymentId)
      .where('kind', '=', kind)
      .where('status', '=', 'pending')
      .execute();
  }
}

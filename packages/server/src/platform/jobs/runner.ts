// Runs due jobs: polls the queue, runs up to `concurrency` handlers at once, retries with the
// handler's backoff. Any replica can run any job; the lease makes each run exactly once at a time,
// and the runner renews it while the handler runs, so no handler can lose it by being slow.
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Job, JobKind, JobQueue } from '../store/jobs.js';
import type { OpsEvents } from '../events.js';
import { backoff } from './backoff.js';

export interface JobContext {
  owner: string;
  /** Aborted when the runner stops: a long job should hand its work back (retry now). */
  signal: AbortSignal;
}

export type JobOutcome =
  | { done: true }
  | { retryAt: Date; error: string }
  | { failed: string }
  /** Not this job's turn yet (it waits for another): run again later, without counting an attempt. */
  | { waitUntil: Date };

export type JobHandler<K extends JobKind = JobKind> = (job: Job<K>, ctx: JobContext) => Promise<JobOutcome>;

export interface RunnerOptions {
  pollMs?: number;
  leaseMs?: number;
  concurrency?: number;
  /** Told how each run ended (ops/: metrics, alerts on dead-lettered jobs). */
  events?: Pick<OpsEvents, 'emit'>;
}

export class JobRunner {
  readonly owner = `runner-${randomUUID().slice(0, 8)}`;
  private readonly handlers: { [K in JobKind]?: JobHandler<K> } = {};
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private abort = new AbortController();
  private ticking: Promise<void> | undefined;
  private again = false;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly events: Pick<OpsEvents, 'emit'> | undefined;
  /** When the last tick ran: readiness asks whether the runner is alive (ops/readiness.ts). */
  lastTickAt = 0;

  constructor(
    private readonly queue: JobQueue,
    private readonly log: FastifyBaseLogger,
    opts: RunnerOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 1000;
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.concurrency = opts.concurrency ?? 8;
    this.events = opts.events;
  }

  register<K extends JobKind>(kind: K, handler: JobHandler<K>) {
    // TypeScript cannot check a write through a generic key of a mapped type; the signature above
    // already ties the handler's Job<K> to its kind.
    Object.assign(this.handlers, { [kind]: handler });
  }

  start() {
    this.stopped = false;
    this.lastTickAt = Date.now();
    this.abort = new AbortController();
    this.queue.onEnqueue = () => this.nudge();
    this.schedule(0);
  }

  async stop() {
    this.stopped = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.running]);
  }

  /** Whether it runs and has polled the queue within three poll intervals (or a lease). */
  alive(now = Date.now()): boolean {
    return (
      !this.stopped && (this.ticking !== undefined || now - this.lastTickAt <= Math.max(3 * this.pollMs, this.leaseMs))
    );
  }

  /** Resolves when no job is running or due right now (tests use it). */
  async idle() {
    for (;;) {
      await this.ticking;
      if (this.running.size === 0) {
        await this.tick();
        if (this.running.size === 0) return;
      }
      await Promise.race([...this.running]);
    }
  }

  nudge() {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private tick(): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.lastTickAt = Date.now();
    this.ticking = (async () => {
      do {
        this.again = false;
        const free = this.concurrency - this.running.size;
        if (free <= 0 || this.stopped) break;
        let jobs: Job[] = [];
        try {
          jobs = await this.queue.claim(this.owner, free, this.leaseMs);
        } catch (err) {
          this.log.error({ err: (err as Error).message }, 'claiming jobs failed');
        }
        for (const job of jobs) {
          const p = this.run(job).finally(() => {
            this.running.delete(p);
            this.nudge();
          });
          this.running.add(p);
        }
        if (jobs.length === free) this.again = true;
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.ticking = undefined;
      if (!this.stopped) this.schedule(this.pollMs);
    });
    return this.ticking;
  }

  private async run<K extends JobKind>(job: Job<K>) {
    const handler: JobHandler<K> | undefined = this.handlers[job.kind];
    const ctx: JobContext = { owner: this.owner, signal: this.abort.signal };
    // Renewed three times a lease while the handler runs. A deploy's handler renewed it only every
    // 5 s, and never while it created the worker: under load a 2 s lease lapsed, another replica ran
    // the same deploy again and its owner was told "active" twice (replicas.test.ts, CI at load 16).
    const renew = setInterval(() => {
      this.queue.heartbeat(job.id, this.owner, this.leaseMs).catch((err) => {
        this.log.warn({ jobId: job.id, err: (err as Error).message }, 'renewing a job lease failed');
      });
    }, this.leaseMs / 3);
    let outcome: JobOutcome;
    try {
      outcome = handler ? await handler(job, ctx) : { failed: `no handler for ${job.kind}` };
    } catch (err) {
      outcome = {
        retryAt: new Date(Date.now() + backoff(job.attempts, { baseMs: 1000, capMs: 60_000 })),
        error: (err as Error).message,
      };
      this.log.warn({ jobId: job.id, kind: job.kind, err: (err as Error).message }, 'job threw; will retry');
    } finally {
      clearInterval(renew);
    }
    try {
      if ('done' in outcome) await this.queue.complete(job.id, this.owner);
      else if ('retryAt' in outcome) await this.queue.retry(job.id, this.owner, outcome.retryAt, outcome.error);
      else if ('waitUntil' in outcome) await this.queue.defer(job.id, this.owner, outcome.waitUntil);
      else await this.queue.fail(job.id, this.owner, outcome.failed);
    } catch (err) {
      this.log.error({ jobId: job.id, err: (err as Error).message }, 'recording a job outcome failed');
    }
    this.events?.emit('job.finished', {
      kind: job.kind,
      deploymentId: job.deploymentId,
      ...('done' in outcome
        ? { outcome: 'done' as const }
        : 'retryAt' in outcome
          ? { outcome: 'retry' as const, error: outcome.error }
          : 'waitUntil' in outcome
            ? { outcome: 'deferred' as const }
            : { outcome: 'failed' as const, error: outcome.failed }),
    });
  }
}

// GET /readyz: whether this replica should get traffic. The store answers, the workers backend is
// reachable and the job runner is alive; otherwise 503 naming what failed. Each check has its own
// deadline, so a backend that hangs makes the probe fail, never hang. /healthz stays liveness (a
// replica whose database is briefly away is not restarted, only taken out of the Service).
// The start-up pass's progress (StartUpProgress, below) is reported beside the checks.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Store } from '../platform/store/database.js';
import type { WorkersPort } from '../workers/index.js';
import type { JobRunner } from '../platform/jobs/runner.js';
import { within } from '../platform/within.js';

export interface ReadinessDeps {
  store: Pick<Store, 'ping'>;
  workers: Pick<WorkersPort, 'listWorkers' | 'reachable'>;
  runner: Pick<JobRunner, 'alive'>;
  log: FastifyBaseLogger;
  /** Per check (default 2 s). */
  timeoutMs?: number;
  /** How far the start-up pass has got re-creating missing workers (StartUpProgress, below). */
  restore?: () => Restore;
}

/** The start-up pass re-creating missing workers: how far it has got. */
export interface Restore {
  /** restoring: the pass is creating missing workers; restored: it finished; failed: it stopped with an error (the reconciler retries). */
  phase: 'restoring' | 'restored' | 'failed';
  /** Missing workers created so far, of `total` (counted when the pass has read the store). */
  done: number;
  total: number;
  error?: string;
}

/**
 * What the control plane can truthfully say about itself while it starts: it answers the API as
 * soon as it listens (the store is open and migrated), while the start-up reconcile pass is still
 * creating the workers the store wants, a few at a time.
 */
export interface ReadinessState {
  /** The API answers: the store is open and migrated. */
  serving: boolean;
  workers: Restore;
}

/** Written by the start-up pass (runtime.ts), read by /readyz and `Runtime.readiness()`. */
export class StartUpProgress {
  private state: ReadinessState = { serving: true, workers: { phase: 'restoring', done: 0, total: 0 } };

  progress = (done: number, total: number) => {
    this.state.workers.done = done;
    this.state.workers.total = total;
  };

  restored() {
    this.state.workers.phase = 'restored';
  }

  failed(err: Error) {
    this.state.workers.phase = 'failed';
    this.state.workers.error = err.message;
  }

  snapshot(): ReadinessState {
    return { serving: this.state.serving, workers: { ...this.state.workers } };
  }
}

export type CheckName = 'store' | 'workers' | 'jobs';
export interface Readiness {
  ok: boolean;
  /** "ok", or what is wrong in words that name no address or secret (the detail goes to the log). */
  checks: Record<CheckName, string>;
  failing?: CheckName[];
  /**
   * The start-up pass: the API answers while it re-creates missing workers, a few at a time, so
   * this informs (an operator watches it) without taking the replica out of the Service.
   */
  restore?: Pick<Restore, 'phase' | 'done' | 'total'>;
}

export async function checkReadiness(d: ReadinessDeps): Promise<Readiness> {
  const ms = d.timeoutMs ?? 2000;
  const run = async (name: CheckName, what: string, check: () => Promise<unknown>): Promise<string> => {
    try {
      await within(check(), ms);
      return 'ok';
    } catch (err) {
      d.log.warn({ check: name, err: (err as Error).message }, 'readiness check failed');
      return /no answer within/.test((err as Error).message)
        ? `${what} did not answer within ${ms} ms`
        : `${what} failed`;
    }
  };
  const [store, workers] = await Promise.all([
    run('store', 'the database', () => d.store.ping()),
    // The backend's cheapest proof that it answers, else one name of its list (a whole list was
    // 4.4 MB at 100,000).
    run('workers', 'the workers backend', () =>
      d.workers.reachable ? d.workers.reachable() : d.workers.listWorkers({ limit: 1 }),
    ),
  ]);
  const jobs = d.runner.alive() ? 'ok' : 'the job runner is not running';
  const checks = { store, workers, jobs };
  const failing = (Object.keys(checks) as CheckName[]).filter((k) => checks[k] !== 'ok');
  const r = d.restore?.();
  const restore = r ? { restore: { phase: r.phase, done: r.done, total: r.total } } : {};
  return failing.length ? { ok: false, checks, failing, ...restore } : { ok: true, checks, ...restore };
}

export function readinessRoute(app: FastifyInstance, deps: ReadinessDeps) {
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const r = await checkReadiness(deps);
    return reply
      .code(r.ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(r);
  });
}

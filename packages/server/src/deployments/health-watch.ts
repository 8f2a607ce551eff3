// An active assistant's status tells the truth after its deploy too (issue 57, finding 1): every
// few seconds the workers backend names the workers that run but are not well (another program
// polls the bot: Telegram's 409; the token revoked at BotFather: 401; Telegram unreachable; the
// model provider rejecting the key), and each such active deployment shows the worker's reason as
// its statusMessage, until the trouble ends and the message is cleared. Both changes are status
// updates: the owner's callback hears of them (a `deployment.status` event with the spec's status
// view), and the operator is alerted of the trouble (ops/alerts.ts, once per deployment and
// window). The status itself stays `active`: the worker runs and recovers by itself once the cause
// is gone (the spec's states have no "active but unwell"; `failed` ends a deploy).
import type { Deployment } from '../domain/deployment.js';
import type { Services } from '../services.js';
import { type SaveDeps, saveDeployment } from './save-deployment.js';

export type HealthWatchDeps = Pick<Services, 'deployments' | 'workers' | 'events' | 'log'> & SaveDeps;

/**
 * How often the backend is asked: a trouble shows within this after the agent knows it. 5 s: a
 * silent network is known at the long poll's deadline (the agent's polling.ts, 20 s), and the
 * owner must see it within 30 s (issue 57).
 */
export const HEALTH_WATCH_MS = 5_000;

/** The worker's words as a statusMessage: one line, bounded like the deploy's progress messages. */
export function troubleMessage(reason: string): string {
  return reason.replace(/\s+/g, ' ').trim().slice(0, 300);
}

export class HealthWatch {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  /**
   * Active deployments whose statusMessage a check may have to clear: those this watch set, and at
   * the first check those the store shows with one (set before this process began).
   */
  private shown: Set<string> | undefined;

  /**
   * `leading`: whether this replica watches now (a cluster-wide backend: the reconciler's leader
   * alone, so N replicas do not ask every pod N times nor announce one change N times).
   */
  constructor(
    private readonly s: HealthWatchDeps,
    private readonly intervalMs = HEALTH_WATCH_MS,
    private readonly leading?: () => Promise<boolean>,
  ) {}

  start() {
    if (!this.s.workers.troubledWorkers) return;
    this.stopped = false;
    this.schedule();
  }

  private schedule() {
    if (this.stopped) return;
    // Never what keeps a process alive.
    this.timer = setTimeout(() => {
      this.running = this.check()
        .catch((err) => this.s.log.warn({ err: (err as Error).message }, 'health watch failed; retrying'))
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One look at the backend: troubles shown, troubles that ended cleared. */
  async check(): Promise<void> {
    if (this.leading && !(await this.leading())) {
      // What the leader shows meanwhile is read afresh if this replica leads again.
      this.shown = undefined;
      return;
    }
    const troubles = await this.s.workers.troubledWorkers!();
    this.shown ??= new Set((await this.s.deployments.activeWithMessage()).map((d) => d.id));
    const shown = this.shown;
    const troubled = new Set<string>();
    for (const d of await this.s.deployments.activeByWorkerNames([...troubles.keys()])) {
      troubled.add(d.id);
      shown.add(d.id);
      const message = troubleMessage(troubles.get(d.workerName)!);
      if (d.statusMessage === message) continue;
      if (await this.show(d, message))
        this.s.events.emit('deployment.unhealthy', { deploymentId: d.id, reason: message });
    }
    for (const id of shown) {
      if (troubled.has(id)) continue;
      const d = await this.s.deployments.findById(id);
      if (d?.status !== 'active' || d.statusMessage === null) {
        shown.delete(id);
        continue;
      }
      // Only a worker that this backend runs and that says it is well: a worker of another
      // replica's agent host is not listed by this one, which says nothing of its health. A
      // backend that did not answer is asked again at the next check.
      const health = await this.s.workers.workerHealth(d.workerName).catch(() => undefined);
      if (!health) continue;
      if (health.ready && !health.reason) {
        shown.delete(id);
        await this.show(d, null);
      } else if (!this.s.workers.clusterWide) shown.delete(id);
      // A cluster's worker is this backend's whatever its state: one not ready now (its host
      // restarting) is asked again, so its message clears once it is well.
    }
  }

  private async show(d: Deployment, message: string | null): Promise<boolean> {
    const saved = await saveDeployment(this.s, d, { statusMessage: message }, { quiet: true, announceMessage: true });
    if (saved)
      this.s.log.info(
        { deploymentId: d.id, statusMessage: message },
        message ? 'worker not well' : 'worker well again',
      );
    return saved !== undefined;
  }

  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}

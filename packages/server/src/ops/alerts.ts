// Alerts to the operator (ALERT_WEBHOOK_URL, DESIGN §7.5): failed deploys, crash loops of the
// agent host, spikes of model provider errors, low router credit, dead-lettered callbacks, failed
// backups, active assistants whose worker is not well. Each is
// raised from an ops event, claimed once per cause and window in the store (so replicas do not
// repeat each other), and delivered by an `alert` job with the callbacks' retry schedule: a
// receiver that hangs or answers 500 only delays its own job, never a request or another job.
import type { Dispatcher } from 'undici';
import type { FastifyBaseLogger } from 'fastify';
import { deliverCallback, nextCallbackDelayMs } from '../callbacks/index.js';
import type { Job, JobQueue } from '../platform/store/jobs.js';
import type { JobOutcome } from '../platform/jobs/runner.js';
import type { AlertRepo } from '../platform/store/alerts.js';
import type { OpsEvents } from '../platform/events.js';

export type AlertFormat = 'slack' | 'standard';
export type AlertKind =
  | 'deploy_failed'
  | 'crash_loop'
  | 'provider_errors'
  | 'low_credit'
  | 'callback_dead_lettered'
  | 'backup_failed'
  | 'worker_unhealthy';

export interface AlertPayload {
  cause: string;
  kind: AlertKind;
  message: string;
  at: string;
}

export interface AlertDeps {
  events: Pick<OpsEvents, 'on'>;
  repo: Pick<AlertRepo, 'claim'>;
  jobs: Pick<JobQueue, 'enqueue'>;
  now: () => Date;
  log: FastifyBaseLogger;
}

export interface AlertTuning {
  /** One alert per cause within this window (default 1 hour). */
  windowMs?: number;
  /** Provider errors within `spikeWindowMs` that make a spike (default 10 in 5 minutes). */
  spikeCount?: number;
  spikeWindowMs?: number;
  /** Quick deaths in a row of the agent host that make a crash loop (default 3). */
  crashLoopRestarts?: number;
}

/** Subscribes to the ops events; returns a function that unsubscribes. */
export function watchForAlerts(d: AlertDeps, t: AlertTuning = {}): () => void {
  const windowMs = t.windowMs ?? 3600_000;
  const spikeCount = t.spikeCount ?? 10;
  const spikeWindowMs = t.spikeWindowMs ?? 300_000;
  const raise = (cause: string, kind: AlertKind, message: string) => {
    const now = d.now();
    void (async () => {
      if (!(await d.repo.claim(cause, now, new Date(now.getTime() - windowMs)))) return;
      const payload: AlertPayload = { cause, kind, message, at: now.toISOString() };
      await d.jobs.enqueue({ kind: 'alert', payload });
    })().catch((err) => d.log.error({ cause, err: (err as Error).message }, 'an alert could not be queued'));
  };
  const providerErrors = new Map<string, number[]>();
  const off = [
    d.events.on('deployment.failed', (e) =>
      raise(`deploy_failed:${e.deploymentId}`, 'deploy_failed', `Deployment ${e.deploymentId} failed: ${e.reason}`),
    ),
    d.events.on('agent_host.restarted', (e) => {
      if (e.restartsInWindow + 1 >= (t.crashLoopRestarts ?? 3))
        raise(
          'crash_loop:agent_host',
          'crash_loop',
          `The agent host keeps exiting (${e.restartsInWindow + 1} times in a row, last exit code ${e.exitCode}); it is restarted with backoff and its assistants are down meanwhile.`,
        );
    }),
    d.events.on('provider.error', (e) => {
      const now = d.now().getTime();
      const recent = (providerErrors.get(e.provider) ?? []).filter((at) => at > now - spikeWindowMs);
      recent.push(now);
      providerErrors.set(e.provider, recent);
      if (recent.length >= spikeCount)
        raise(
          `provider_errors:${e.provider}`,
          'provider_errors',
          `The model provider ${e.provider} answered ${recent.length} errors in the last ${Math.round(spikeWindowMs / 60_000)} minutes (last: ${e.status || 'unreachable'}).`,
        );
    }),
    d.events.on('provider.low_credit', (e) =>
      raise(
        `low_credit:${e.provider}`,
        'low_credit',
        `The managed model provider ${e.provider} has $${e.remainingUsd.toFixed(2)} of credit left (alert below $${e.thresholdUsd.toFixed(2)}); managed and unlimited assistants stop answering when it runs out.`,
      ),
    ),
    d.events.on('job.finished', (e) => {
      if (e.kind === 'callback' && e.outcome === 'failed')
        raise(
          `callback_dead_lettered:${e.deploymentId}`,
          'callback_dead_lettered',
          `A status callback of deployment ${e.deploymentId} was given up on: ${e.error ?? 'no reason given'}.`,
        );
    }),
    d.events.on('backup.failed', (e) => raise('backup_failed', 'backup_failed', `A backup failed: ${e.reason}`)),
    d.events.on('deployment.unhealthy', (e) =>
      raise(
        `worker_unhealthy:${e.deploymentId}`,
        'worker_unhealthy',
        `Deployment ${e.deploymentId} is active but not well: ${e.reason}`,
      ),
    ),
  ];
  return () => {
    for (const f of off) f();
  };
}

/** The body the receiver gets: Slack's incoming-webhook shape, or a Standard Webhooks event. */
export function alertBody(format: AlertFormat, a: AlertPayload): string {
  if (format === 'slack') return JSON.stringify({ text: `:rotating_light: Berth alert (${a.kind}): ${a.message}` });
  return JSON.stringify({ type: `berth.alert.${a.kind}`, timestamp: a.at, data: a });
}

export interface AlertSender {
  url: string | undefined;
  format: AlertFormat;
  dispatcher: Dispatcher;
  timeoutMs: number;
  now: () => Date;
  log: FastifyBaseLogger;
}

/** The `alert` job: one delivery attempt; retried on the callbacks' schedule. */
export async function runAlertJob(s: AlertSender, job: Job<'alert'>): Promise<JobOutcome> {
  if (!s.url) return { failed: 'ALERT_WEBHOOK_URL is not set' };
  const payload = job.payload as AlertPayload;
  // The operator's own receiver: loopback and private addresses are allowed (it is not tenant input).
  const res = await deliverCallback(
    {
      url: s.url,
      id: `alert_${job.id}`,
      timestamp: Math.floor(s.now().getTime() / 1000),
      body: alertBody(s.format, payload),
    },
    s.dispatcher,
    true,
    s.timeoutMs,
  );
  if (res.ok) return { done: true };
  const delay = res.retry ? nextCallbackDelayMs(job.attempts) : undefined;
  s.log.warn({ cause: payload.cause, attempt: job.attempts, reason: res.reason }, 'alert not delivered');
  return delay === undefined
    ? { failed: res.reason }
    : { retryAt: new Date(s.now().getTime() + delay), error: res.reason };
}

// The operator's metrics (DESIGN §7.5), in a registry of their own (several runtimes may share a
// process in tests). Counters are fed by ops events and one onResponse hook; gauges that describe
// the store (deployments, jobs) or the agent host are read when Prometheus scrapes, never on a
// request. Labels are bounded: route patterns, methods, statuses, modes, models of the catalog.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeploymentRepo } from '../platform/store/deployments.js';
import type { JobQueue } from '../platform/jobs/queue.js';
import type { WorkersPort } from '../workers/port.js';
import type { OpsEvents } from '../platform/events.js';
import { RequestMetrics } from './request-metrics.js';

export interface MetricsDeps {
  deployments: Pick<DeploymentRepo, 'countByStatus'>;
  jobs: Pick<JobQueue, 'backlog'>;
  workers: Pick<WorkersPort, 'hostStats'>;
  events: Pick<OpsEvents, 'on'>;
}

/** Every status of the state machine, so a status with no deployment reads 0 instead of vanishing. */
const STATUSES = ['pending_payment', 'purchased', 'deploying', 'active', 'failed', 'stopped'];

/** What kinds of Telegram errors the control plane can tell apart from a worker's failure reason. */
function telegramKind(reason: string): string | undefined {
  if (/^Telegram rejected the bot token/i.test(reason)) return 'token_rejected';
  if (/telegram/i.test(reason)) return 'other';
  return undefined;
}

export class Metrics {
  readonly registry = new Registry();
  /** The per-request families, counted without prom-client's per-call label hashing. */
  private readonly requests: RequestMetrics;
  private readonly firstByte: Histogram;

  constructor(deps: MetricsDeps) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // prom-client names these gauges *_total, which Prometheus reserves for counters (promtool
    // flags them); their per-type twins (nodejs_active_handles{type}, …) carry the same figures.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'])
      this.registry.removeSingleMetric(name);
    this.requests = new RequestMetrics(this.registry);
    this.firstByte = new Histogram({
      name: 'berth_chat_first_byte_seconds',
      help: "Time from a chat request's arrival to the first byte of the worker's answer.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers,
    });
    new Gauge({
      name: 'berth_deployments',
      help: 'Deployments by status.',
      labelNames: ['status'],
      registers,
      async collect() {
        const counts = await deps.deployments.countByStatus();
        this.reset();
        for (const s of new Set([...STATUSES, ...Object.keys(counts)])) this.set({ status: s }, counts[s] ?? 0);
      },
    });
    const cost = new Counter({
      name: 'berth_gateway_cost_usd_total',
      help: 'Cost of metered model calls in USD, by mode and model.',
      labelNames: ['mode', 'model'],
      registers,
    });
    const tokens = new Counter({
      name: 'berth_gateway_tokens_total',
      help: 'Tokens of metered model calls, by mode and kind (prompt or completion).',
      labelNames: ['mode', 'kind'],
      registers,
    });
    deps.events.on('usage.settled', (u) => {
      cost.inc({ mode: u.mode, model: u.model }, u.costNano / 1e9);
      tokens.inc({ mode: u.mode, kind: 'prompt' }, u.promptTokens);
      tokens.inc({ mode: u.mode, kind: 'completion' }, u.completionTokens);
    });
    // Both gauges from one query per scrape.
    let backlog: Promise<{ queued: number; oldestAgeSeconds: number }> | undefined;
    const readBacklog = () => {
      backlog ??= deps.jobs.backlog().finally(() => setImmediate(() => (backlog = undefined)));
      return backlog;
    };
    new Gauge({
      name: 'berth_jobs_queued',
      help: 'Jobs due and waiting for a runner.',
      registers,
      async collect() {
        this.set((await readBacklog()).queued);
      },
    });
    new Gauge({
      name: 'berth_jobs_oldest_age_seconds',
      help: 'How long the oldest due job has waited for a runner.',
      registers,
      async collect() {
        this.set((await readBacklog()).oldestAgeSeconds);
      },
    });
    const callbacksFailed = new Counter({
      name: 'berth_callbacks_failed_total',
      help: 'Status callbacks given up on (dead-lettered) after their retries.',
      registers,
    });
    deps.events.on('job.finished', (j) => {
      if (j.kind === 'callback' && j.outcome === 'failed') callbacksFailed.inc();
    });
    const telegram = new Counter({
      name: 'berth_telegram_errors_total',
      help: 'Telegram errors that failed a deployment, by kind.',
      labelNames: ['kind'],
      registers,
    });
    telegram.inc({ kind: 'token_rejected' }, 0);
    deps.events.on('deployment.failed', (f) => {
      const kind = telegramKind(f.reason);
      if (kind) telegram.inc({ kind });
    });
    new Gauge({
      name: 'berth_agent_host_rss_bytes',
      help: 'Resident memory of the agent host this control plane supervises (local backend).',
      registers,
      async collect() {
        const stats = await deps.workers.hostStats?.().catch(() => []);
        this.reset();
        if (stats?.length) this.set(stats.reduce((sum, s) => sum + s.rss, 0));
      },
    });
  }

  /** One answered request; `route` is the matched pattern (or "unmatched"), never the raw URL. */
  observeRequest(route: string, method: string, status: number, seconds: number) {
    this.requests.observe(route, method, status, seconds);
  }

  observeFirstByte(seconds: number) {
    this.firstByte.observe(seconds);
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

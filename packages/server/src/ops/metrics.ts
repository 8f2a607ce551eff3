// The operator's metrics (DESIGN §7.5), in a registry of their own (several runtimes may share a
// process in tests). Counters are fed by ops events and one onResponse hook; gauges that describe
// the store (deployments, jobs) are read when Prometheus scrapes, never on a request. The local
// agent host's own families (its /metrics: memory, assistants by state, Telegram errors) follow
// the control plane's in the same scrape. Labels are bounded: route patterns, methods, statuses,
// modes, models of the catalog.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeploymentRepo } from '../platform/store/deployments.js';
import type { JobQueue } from '../platform/store/jobs.js';
import type { WorkersPort } from '../workers/index.js';
import type { OpsEvents } from '../platform/events.js';
import { RequestMetrics } from './request-metrics.js';
import { within } from '../platform/within.js';

export interface MetricsDeps {
  deployments: Pick<DeploymentRepo, 'countByStatus'>;
  jobs: Pick<JobQueue, 'backlog'>;
  workers: Pick<WorkersPort, 'hostMetrics'>;
  events: Pick<OpsEvents, 'on'>;
}

/** Every status of the state machine, so a status with no deployment reads 0 instead of vanishing. */
/** How long a scrape waits for the local agent host's families. */
export const HOST_SCRAPE_MS = 2000;
const STATUSES = ['pending_payment', 'purchased', 'deploying', 'active', 'failed', 'stopped'];

export class Metrics {
  readonly registry = new Registry();
  /** The per-request families, counted without prom-client's per-call label hashing. */
  private readonly requests: RequestMetrics;
  private readonly firstByte: Histogram;
  private readonly hostMetrics: () => Promise<string>;

  constructor(deps: MetricsDeps, hostScrapeMs = HOST_SCRAPE_MS) {
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
    // Telegram errors and the agent host's memory are the agents' own families (the agent counts
    // every failed Bot API call where it happens); counting deployments failed by Telegram here
    // too would count the same rejection twice once the host's text is added (0025).
    // A busy or starting host must not fail the whole scrape (Prometheus gives up after 10 s): past
    // HOST_SCRAPE_MS the control plane's own families go out without the host's.
    this.hostMetrics = () =>
      deps.workers.hostMetrics ? within(deps.workers.hostMetrics(), hostScrapeMs).catch(() => '') : Promise.resolve('');
  }

  /** One answered request; `route` is the matched pattern (or "unmatched"), never the raw URL. */
  observeRequest(route: string, method: string, status: number, seconds: number) {
    this.requests.observe(route, method, status, seconds);
  }

  observeFirstByte(seconds: number) {
    this.firstByte.observe(seconds);
  }

  /** The control plane's families, then the local agent host's (no family is in both). */
  async text(): Promise<string> {
    const [own, host] = await Promise.all([this.registry.metrics(), this.hostMetrics()]);
    return own.endsWith('\n') || !host ? own + host : `${own}\n${host}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

// "Low router credit" (DESIGN §7.5): the managed mode's upstream (MANAGED_PROVIDER, a router such
// as OpenRouter that bills a prepaid balance) stops answering every managed and unlimited
// assistant when its credit runs out. Every few minutes each replica asks the provider's
// `GET {baseUrl}/credits` (OpenRouter's `{data: {total_credits, total_usage}}`, USD) and, below
// ALERT_LOW_CREDIT_USD, emits `provider.low_credit`; alerts.ts claims the cause once per window,
// so replicas and repeated checks do not repeat the alert. A provider without the endpoint (404)
// is told once in the log and not asked again.
import { request, type Dispatcher } from 'undici';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../platform/config/env.js';
import type { ModelCatalog } from '../catalog/index.js';
import type { OpsEvents } from '../platform/events.js';

export interface CreditBalance {
  totalUsd: number;
  usedUsd: number;
  remainingUsd: number;
}

/** The credit port: the balance, or `unsupported` when the provider has no such endpoint. */
export type CreditSource = () => Promise<CreditBalance | 'unsupported'>;

export class CreditCheckError extends Error {}

/** OpenRouter's `GET /api/v1/credits` (the catalog's baseUrl ends in `/api/v1`). */
export function openRouterCredits(o: {
  baseUrl: string;
  apiKey: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
}): CreditSource {
  return async () => {
    const res = await request(`${o.baseUrl}/credits`, {
      method: 'GET',
      headers: { authorization: `Bearer ${o.apiKey}`, accept: 'application/json' },
      dispatcher: o.dispatcher,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    const text = await res.body.text();
    if (res.statusCode === 404) return 'unsupported';
    if (res.statusCode !== 200) throw new CreditCheckError(`the provider answered ${res.statusCode}`);
    let data: { total_credits?: unknown; total_usage?: unknown } | undefined;
    try {
      data = (JSON.parse(text) as { data?: typeof data }).data;
    } catch {
      throw new CreditCheckError('the provider answered something other than JSON');
    }
    const total = data?.total_credits;
    const used = data?.total_usage;
    if (typeof total !== 'number' || typeof used !== 'number' || !Number.isFinite(total) || !Number.isFinite(used))
      throw new CreditCheckError('the answer has no numeric data.total_credits and data.total_usage');
    return { totalUsd: total, usedUsd: used, remainingUsd: total - used };
  };
}

export interface CreditWatchDeps {
  events: Pick<OpsEvents, 'emit'>;
  log: FastifyBaseLogger;
  source: CreditSource;
  provider: string;
  thresholdUsd: number;
  /** Default 5 minutes. */
  intervalMs?: number;
}

/** Checks now and then every interval; returns a function that stops it. */
export function watchCredit(d: CreditWatchDeps): () => void {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  const check = async () => {
    if (running) return; // a slow provider: never two checks at once
    running = true;
    try {
      const balance = await d.source();
      if (balance === 'unsupported') {
        d.log.warn(
          { provider: d.provider },
          'ALERT_LOW_CREDIT_USD is set but the managed provider has no credits endpoint; credit is not checked',
        );
        stop();
        return;
      }
      if (balance.remainingUsd < d.thresholdUsd)
        d.events.emit('provider.low_credit', {
          provider: d.provider,
          remainingUsd: balance.remainingUsd,
          thresholdUsd: d.thresholdUsd,
        });
    } catch (err) {
      d.log.warn({ provider: d.provider, err: (err as Error).message }, 'the provider credit check failed');
    } finally {
      running = false;
    }
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  timer = setInterval(() => void check(), d.intervalMs ?? 300_000);
  timer.unref();
  void check();
  return stop;
}

/** The runtime's wiring: the managed provider's credit, when alerts and a threshold are set. */
export function watchManagedCredit(
  config: Pick<Config, 'alerts' | 'managedProvider' | 'managedProviderApiKey'>,
  catalog: Pick<ModelCatalog, 'provider'>,
  events: Pick<OpsEvents, 'emit'>,
  /** Called only when the credit is watched: the dispatcher is made at its first use. */
  dispatcher: () => Dispatcher,
  log: FastifyBaseLogger,
  intervalMs?: number,
): () => void {
  const threshold = config.alerts.lowCreditUsd;
  const provider = catalog.provider(config.managedProvider);
  if (threshold === undefined || !config.alerts.webhookUrl || !provider) return () => {};
  if (!config.managedProviderApiKey) {
    log.warn('ALERT_LOW_CREDIT_USD is set but MANAGED_PROVIDER_API_KEY is not; credit is not checked');
    return () => {};
  }
  const source = openRouterCredits({
    baseUrl: provider.baseUrl,
    apiKey: config.managedProviderApiKey,
    dispatcher: dispatcher(),
    timeoutMs: 15_000,
  });
  return watchCredit({ events, log, source, provider: provider.id, thresholdUsd: threshold, intervalMs });
}

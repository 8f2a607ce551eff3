// The per-request families (berth_http_requests_total, berth_http_request_duration_seconds),
// counted in plain numbers and turned into Prometheus samples only when scraped. prom-client's
// label children hash and validate their labels on every inc()/observe() (bench:metrics: about
// 1.1 µs a request); here a request is two Map lookups by values that are already strings, one
// Map update and one bucket scan, with nothing allocated once a route has been seen. The objects
// below are registered in the prom-client Registry as metrics of their own (its exposition
// formats them like any other).
import type { Registry } from 'prom-client';

/** Seconds; Prometheus' `le` is inclusive. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

interface Cell {
  route: string;
  method: string;
  byStatus: Map<number, number>;
  /** Non-cumulative counts per bucket; the last slot is above every bound (+Inf only). */
  buckets: Float64Array;
  sum: number;
  count: number;
}

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

/** The shape prom-client's Registry reads from a metric (what its own metrics' get() returns). */
interface ScrapedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
  reset(): void;
}

export class RequestMetrics {
  private readonly byRoute = new Map<string, Map<string, Cell>>();

  constructor(registry: Registry) {
    const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) => {
      const m: ScrapedMetric = {
        name,
        help,
        type,
        aggregator: 'sum',
        get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
        reset: () => this.byRoute.clear(),
      };
      // A duck-typed metric: Registry only calls get() (and reset()) on what it holds.
      registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
    };
    metric('berth_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', 'counter', () =>
      this.requestSamples(),
    );
    metric(
      'berth_http_request_duration_seconds',
      'Time to answer an HTTP request (a streamed chat: until its last byte), by route pattern and method.',
      'histogram',
      () => this.durationSamples(),
    );
  }

  /** One answered request; `route` is the matched pattern (or "unmatched"), never the raw URL. */
  observe(route: string, method: string, status: number, seconds: number): void {
    let methods = this.byRoute.get(route);
    if (!methods) {
      methods = new Map();
      this.byRoute.set(route, methods);
    }
    let c = methods.get(method);
    if (!c) {
      c = { route, method, byStatus: new Map(), buckets: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
      methods.set(method, c);
    }
    c.byStatus.set(status, (c.byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    c.buckets[i]!++;
    c.sum += seconds;
    c.count++;
  }

  private *cells(): Iterable<Cell> {
    for (const methods of this.byRoute.values()) yield* methods.values();
  }

  private requestSamples(): Sample[] {
    const out: Sample[] = [];
    for (const c of this.cells())
      for (const [status, n] of c.byStatus)
        out.push({ labels: { route: c.route, method: c.method, status: String(status) }, value: n });
    return out;
  }

  private durationSamples(): Sample[] {
    const out: Sample[] = [];
    const name = 'berth_http_request_duration_seconds';
    for (const c of this.cells()) {
      let cumulative = 0;
      for (let i = 0; i < BUCKETS.length; i++) {
        cumulative += c.buckets[i]!;
        out.push({
          labels: { route: c.route, method: c.method, le: BUCKETS[i]! },
          value: cumulative,
          metricName: `${name}_bucket`,
        });
      }
      out.push({
        labels: { route: c.route, method: c.method, le: '+Inf' },
        value: c.count,
        metricName: `${name}_bucket`,
      });
      out.push({ labels: { route: c.route, method: c.method }, value: c.sum, metricName: `${name}_sum` });
      out.push({ labels: { route: c.route, method: c.method }, value: c.count, metricName: `${name}_count` });
    }
    return out;
  }
}

// HTML pages for the web tool are converted to text in worker threads with a deadline
// (threads/thread-pool.ts): one tenant's heavy pages never run on the event loop nor starve another
// tenant's page.
import { ThreadPool, type PoolWords, workerUrl } from '../threads/thread-pool.js';

export class PageTooComplexError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PageTooComplexError';
  }
}

export interface HtmlPoolOptions {
  /** Workers running at once (each one a thread). */
  size?: number;
  /** How long one conversion may take before its worker is terminated. */
  deadlineMs?: number;
  /** Conversions allowed to wait for a worker; more are refused at once (but see maxQueuedPerTenant). */
  maxQueued?: number;
  /** Conversions one tenant may have waiting; its next is refused at once. */
  maxQueuedPerTenant?: number;
  /** An idle thread exits after this long. */
  idleMs?: number;
}

const words: PoolWords = {
  error: (message) => new PageTooComplexError(message),
  busy: 'Too many pages are being read right now; try again in a moment.',
  deadline: (s) => `The page is too complex to read within ${s} s.`,
  crashed: (detail) => `The page is too complex to read${detail ? ` (${detail})` : ''}.`,
  closed: 'the HTML converter is closed',
};

export class HtmlPool {
  private readonly pool: ThreadPool<{ html: string }, { text?: string; error?: string }>;

  constructor(opts: HtmlPoolOptions = {}) {
    const maxQueued = opts.maxQueued ?? 32;
    this.pool = new ThreadPool({
      name: 'html',
      worker: workerUrl(import.meta.url, 'html-worker'),
      size: Math.max(1, opts.size ?? 2),
      deadlineMs: opts.deadlineMs ?? 2000,
      maxQueued,
      maxQueuedPerTenant: Math.max(1, opts.maxQueuedPerTenant ?? Math.ceil(maxQueued / 4)),
      idleMs: opts.idleMs ?? 30_000,
      // Memory and stack are capped too: a deeply nested page fails in its worker, not the host.
      resourceLimits: { maxOldGenerationSizeMb: 128, stackSizeMb: 4 },
      words,
    });
  }

  /** Threads alive now (busy or idle). */
  get threads(): number {
    return this.pool.threads;
  }

  /** `tenant` names whose work this is (the agent); jobs of one tenant wait in their own queue. */
  async convert(html: string, tenant = ''): Promise<string> {
    const out = await this.pool.run(tenant, { html });
    if (out.error !== undefined) throw new PageTooComplexError(`The page could not be converted: ${out.error}`);
    return out.text ?? '';
  }

  close() {
    return this.pool.close();
  }
}

let shared: HtmlPool | undefined;

/** The host-wide pool: one per process, so all tenants share the same bounded set of threads. */
export function sharedHtmlPool(): HtmlPool {
  shared ??= new HtmlPool();
  return shared;
}

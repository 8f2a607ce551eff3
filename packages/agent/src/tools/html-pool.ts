// A small pool of worker threads that convert HTML to text with a deadline. The agent host serves
// every tenant from one event loop, so a page that is slow to convert must never run on it: the
// work runs in a worker, and a worker past its deadline is terminated (and replaced on demand).
// The threads are shared by every tenant of the host, so waiting is fair: each tenant (agent) has
// its own queue with a bounded share, a free thread takes the next tenant's job in turn, and a
// tenant with nothing waiting is always let in. One tenant's burst of heavy pages costs another
// tenant at most one conversion per other busy tenant, never a refusal.
import { Worker } from 'node:worker_threads';

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
}

interface Job {
  html: string;
  resolve: (text: string) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number; timer: NodeJS.Timeout };
}

// Built, the worker is dist/tools/html-worker.js. From sources (tests, benchmarks) it is the .ts
// file, and a worker does not inherit the parent's TypeScript loader: a two-line bootstrap registers it.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './html-worker.ts' : './html-worker.js', import.meta.url);

function newWorker(options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, options);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((t) => { t.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

export class HtmlPool {
  private readonly size: number;
  private readonly deadlineMs: number;
  private readonly maxQueued: number;
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private readonly maxQueuedPerTenant: number;
  /** Waiting jobs per tenant; Map order is the round-robin order (a served tenant moves to the end). */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  private nextId = 0;
  private closed = false;

  constructor(opts: HtmlPoolOptions = {}) {
    this.size = Math.max(1, opts.size ?? 2);
    this.deadlineMs = opts.deadlineMs ?? 2000;
    this.maxQueued = opts.maxQueued ?? 32;
    this.maxQueuedPerTenant = Math.max(1, opts.maxQueuedPerTenant ?? Math.ceil(this.maxQueued / 4));
  }

  /** `tenant` names whose work this is (the agent); jobs of one tenant wait in their own queue. */
  convert(html: string, tenant = ''): Promise<string> {
    if (this.closed) return Promise.reject(new Error('the HTML converter is closed'));
    return new Promise((resolve, reject) => {
      const mine = this.queues.get(tenant);
      const waiting = mine?.length ?? 0;
      // A tenant with nothing waiting always gets in: the total can pass maxQueued by one per tenant.
      if (waiting >= this.maxQueuedPerTenant || (waiting > 0 && this.queued >= this.maxQueued)) {
        reject(new PageTooComplexError('Too many pages are being read right now; try again in a moment.'));
        return;
      }
      if (mine) mine.push({ html, resolve, reject });
      else this.queues.set(tenant, [{ html, resolve, reject }]);
      this.queued++;
      this.pump();
    });
  }

  /** The next job in turn: the first tenant's oldest, and that tenant goes to the back of the line. */
  private take(): Job | undefined {
    const first = this.queues.entries().next();
    if (first.done) return undefined;
    const [tenant, jobs] = first.value;
    const job = jobs.shift()!;
    this.queues.delete(tenant);
    if (jobs.length) this.queues.set(tenant, jobs);
    this.queued--;
    return job;
  }

  async close() {
    this.closed = true;
    for (const jobs of this.queues.values())
      for (const job of jobs) job.reject(new Error('the HTML converter is closed'));
    this.queues.clear();
    this.queued = 0;
    const all = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    for (const slot of all) {
      if (slot.job) {
        clearTimeout(slot.job.timer);
        slot.job.reject(new Error('the HTML converter is closed'));
      }
    }
    await Promise.all(all.map((slot) => slot.worker.terminate()));
  }

  private pump() {
    while (this.queued > 0) {
      let slot = this.idle.pop();
      if (!slot) {
        if (this.busy.size >= this.size) return;
        slot = this.spawn();
      }
      this.start(slot, this.take()!);
    }
  }

  private spawn(): Slot {
    // Memory and stack are capped too: a deeply nested page fails in its worker, not the host.
    const worker = newWorker({ resourceLimits: { maxOldGenerationSizeMb: 128, stackSizeMb: 4 } });
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', (msg: { id: number; text?: string; error?: string }) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      this.busy.delete(slot);
      this.idle.push(slot);
      if (msg.error !== undefined) job.reject(new PageTooComplexError(`The page could not be converted: ${msg.error}`));
      else job.resolve(msg.text ?? '');
      this.pump();
    });
    const fail = (reason: string) => {
      const job = slot.job;
      slot.job = undefined;
      this.busy.delete(slot);
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      if (job) {
        clearTimeout(job.timer);
        job.reject(new PageTooComplexError(reason));
      }
      if (!this.closed) this.pump();
    };
    worker.on('error', (err) => fail(`The page is too complex to read (${err.message}).`));
    worker.on('exit', () => fail('The page is too complex to read.'));
    return slot;
  }

  private start(slot: Slot, job: Job) {
    const id = ++this.nextId;
    const timer = setTimeout(() => {
      const current = slot.job;
      if (!current || current.id !== id) return;
      slot.job = undefined;
      this.busy.delete(slot);
      current.reject(new PageTooComplexError(`The page is too complex to read within ${this.deadlineMs / 1000} s.`));
      void slot.worker.terminate();
      this.pump();
    }, this.deadlineMs);
    slot.job = { ...job, id, timer };
    this.busy.add(slot);
    slot.worker.postMessage({ id, html: job.html });
  }
}

let shared: HtmlPool | undefined;

/** The host-wide pool: one per process, so all tenants share the same bounded set of threads. */
export function sharedHtmlPool(): HtmlPool {
  shared ??= new HtmlPool();
  return shared;
}

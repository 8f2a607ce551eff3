// One worker-thread pool for work that must not run on the host's event loop (HTML pages for the
// web tool, documents a user sends). The host serves every tenant from one event loop and one set
// of threads, so the pool is fair and bounded:
// - a job past its deadline has its thread terminated, and the thread counts against the pool's size
//   until it has exited: a replacement never runs beside a thread still being torn down (each holds
//   up to its heap cap; a burst of slow documents must not stack them, issue 57 R4);
// - each tenant (assistant) has its own queue with a bounded share; a free thread takes the next
//   tenant's oldest job in turn, and a tenant with nothing waiting is always let in: one tenant's
//   burst costs another at most one job per other busy tenant, never a refusal;
// - a thread idle for idleMs exits, so the pool shrinks to zero and its isolates' memory goes back.
// - a job's deadline runs from when its thread is ready (see below), not from when it was spawned:
//   a thread's start-up (loading its libraries: seconds on a busy host) is not the job's time, and a
//   simple page read by a fresh thread was answered "too complex" (found under a second suite's load).
// Worker protocol: a worker posts `{ ready: true }` once its module has loaded (a thread that does
// not within STARTUP_MS fails its job); the pool posts `{ id, ...input }` and takes the first
// `{ id, ... }` answer back.
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { counters, type PoolName } from '../ops/counters.js';

/** The ways the pool itself fails a job, in the caller's words and error type. */
export interface PoolWords {
  error(message: string): Error;
  /** The tenant's share (or the whole queue) is full. */
  busy: string;
  deadline(seconds: number): string;
  /** The thread failed or exited (out of memory, a stack overflow); `detail` when it said why. */
  crashed(detail?: string): string;
  closed: string;
}

export interface ThreadPoolOptions {
  /** Which pool its jobs count under in the metrics (berth_agent_pool_jobs_total{pool}). */
  name: PoolName;
  /** The worker module (a .ts URL from sources: tests and benchmarks load it through tsx). */
  worker: URL;
  /** Threads running at once. */
  size: number;
  /** How long one job may take before its thread is terminated. */
  deadlineMs: number;
  /** Jobs allowed to wait in all (a tenant with nothing waiting still gets in). */
  maxQueued: number;
  /** Jobs one tenant may have waiting; its next is refused at once. */
  maxQueuedPerTenant: number;
  /** An idle thread exits after this long. */
  idleMs: number;
  resourceLimits: ResourceLimits;
  words: PoolWords;
  /** Called when the last thread has exited (the pool is at zero until the next job). */
  onEmpty?(): void;
  /** How long a thread may take to load its module (STARTUP_MS unless told). */
  startupMs?: number;
}

interface Job {
  input: object;
  transfer: ArrayBuffer[];
  resolve: (out: object) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Its module has loaded (it posted `{ ready: true }`). */
  ready: boolean;
  startTimer?: NodeJS.Timeout;
  job?: Job & { id: number; timer?: NodeJS.Timeout };
  idleTimer?: NodeJS.Timeout;
}

/** The longest a thread may take to load its module before its job fails. */
export const STARTUP_MS = 30_000;

/** What a worker posts once its module has loaded, before any job's deadline runs. */
type WorkerReady = { ready: true };

/** The ready message, never a job's answer (answers carry their id). */
function isReady(msg: unknown): msg is WorkerReady {
  return typeof msg === 'object' && msg !== null && (msg as WorkerReady).ready === true && !('id' in msg);
}

function newWorker(url: URL, options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  // A worker does not inherit the parent's TypeScript loader: a two-line bootstrap registers it.
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

/** The worker URL for `name` beside `base` (an import.meta.url): `.ts` from sources, `.js` built. */
export const workerUrl = (base: string, name: string) =>
  new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);

export class ThreadPool<In extends object, Out extends object> {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  /** Threads terminated at their deadline that have not exited yet. */
  private readonly dying = new Set<Slot>();
  private peak = 0;
  /** Waiting jobs per tenant; Map order is the round-robin order (a served tenant moves to the end). */
  private readonly queues = new Map<string, Job[]>();
  private queued = 0;
  private nextId = 0;
  private closed = false;

  constructor(private readonly o: ThreadPoolOptions) {}

  /** Threads alive now (busy, idle, or terminated and not yet exited). */
  get threads(): number {
    return this.idle.length + this.busy.size + this.dying.size;
  }

  /** The most threads alive at once so far. */
  get peakThreads(): number {
    return this.peak;
  }

  /** Runs `input` in a thread for `tenant`; `transfer` buffers move to the thread instead of being copied. */
  run(tenant: string, input: In, transfer: ArrayBuffer[] = []): Promise<Out> {
    if (this.closed) return Promise.reject(this.o.words.error(this.o.words.closed));
    const count = counters.poolJobs[this.o.name];
    return new Promise((resolve, reject) => {
      const mine = this.queues.get(tenant);
      const waiting = mine?.length ?? 0;
      // A tenant with nothing waiting always gets in: the total can pass maxQueued by one per tenant.
      if (waiting >= this.o.maxQueuedPerTenant || (waiting > 0 && this.queued >= this.o.maxQueued)) {
        count.refused++;
        reject(this.o.words.error(this.o.words.busy));
        return;
      }
      const job: Job = {
        input,
        transfer,
        resolve: (out) => {
          count.done++;
          resolve(out as Out);
        },
        reject: (err) => {
          count.failed++;
          reject(err);
        },
      };
      if (mine) mine.push(job);
      else this.queues.set(tenant, [job]);
      this.queued++;
      this.pump();
    });
  }

  async close() {
    this.closed = true;
    const closed = () => this.o.words.error(this.o.words.closed);
    for (const jobs of this.queues.values()) for (const job of jobs) job.reject(closed());
    this.queues.clear();
    this.queued = 0;
    const all = [...this.idle.splice(0), ...this.busy, ...this.dying];
    this.busy.clear();
    this.dying.clear();
    for (const slot of all) {
      clearTimeout(slot.idleTimer);
      clearTimeout(slot.startTimer);
      if (slot.job) {
        clearTimeout(slot.job.timer);
        slot.job.reject(closed());
      }
    }
    await Promise.all(all.map((slot) => slot.worker.terminate()));
  }

  /** The next job in turn: the first tenant's oldest, and that tenant goes to the back of the line. */
  private take(): Job {
    const [tenant, jobs] = this.queues.entries().next().value!;
    const job = jobs.shift()!;
    this.queues.delete(tenant);
    if (jobs.length) this.queues.set(tenant, jobs);
    this.queued--;
    return job;
  }

  private pump() {
    while (this.queued > 0) {
      let slot = this.idle.pop();
      if (slot) clearTimeout(slot.idleTimer);
      else {
        if (this.busy.size + this.dying.size >= this.o.size) return;
        slot = this.spawn();
      }
      this.start(slot, this.take());
    }
  }

  private rest(slot: Slot) {
    this.idle.push(slot);
    // A thread at rest does not keep its process alive (a host's shutdown waited idleMs for it). Not
    // at spawn: the 'message' listener added there refs the thread's port again, which keeps a new
    // thread's first job alive; a later job's deadline timer does.
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      void slot.worker.terminate().then(() => {
        if (this.threads === 0 && !this.closed) this.o.onEmpty?.();
      });
    }, this.o.idleMs);
    slot.idleTimer.unref();
  }

  private spawn(): Slot {
    const worker = newWorker(this.o.worker, { resourceLimits: this.o.resourceLimits });
    const slot: Slot = { worker, ready: false };
    worker.on('message', (msg: (Out & { id: number }) | WorkerReady) => {
      if (isReady(msg)) {
        slot.ready = true;
        clearTimeout(slot.startTimer);
        if (slot.job) this.arm(slot);
        return;
      }
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      this.busy.delete(slot);
      this.rest(slot);
      const { id: _, ...out } = msg;
      job.resolve(out);
      this.pump();
    });
    const fail = (detail?: string) => {
      const job = slot.job;
      slot.job = undefined;
      clearTimeout(slot.idleTimer);
      clearTimeout(slot.startTimer);
      this.busy.delete(slot);
      this.dying.delete(slot);
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      if (job) {
        clearTimeout(job.timer);
        job.reject(this.o.words.error(this.o.words.crashed(detail)));
      }
      if (!this.closed) this.pump();
    };
    worker.on('error', (err) => fail(err.message));
    worker.on('exit', () => fail());
    const startupMs = this.o.startupMs ?? STARTUP_MS;
    slot.startTimer = setTimeout(() => {
      // As a job past its deadline: the thread counts against the pool's size until it has exited
      // (its 'exit' pumps), so no replacement starts beside it.
      const job = slot.job;
      slot.job = undefined;
      this.busy.delete(slot);
      this.dying.add(slot);
      job?.reject(this.o.words.error(this.o.words.crashed(`its thread did not start within ${startupMs / 1000} s`)));
      void worker.terminate();
    }, startupMs);
    slot.startTimer.unref();
    return slot;
  }

  private start(slot: Slot, job: Job) {
    const id = ++this.nextId;
    slot.job = { ...job, id };
    this.busy.add(slot);
    this.peak = Math.max(this.peak, this.threads);
    // A fresh thread holds the job in its message queue until its module has loaded; the deadline
    // starts then (the 'ready' message above).
    if (slot.ready) this.arm(slot);
    slot.worker.postMessage({ ...job.input, id }, job.transfer);
  }

  /** Starts the deadline of the slot's job. */
  private arm(slot: Slot) {
    const id = slot.job!.id;
    slot.job!.timer = setTimeout(() => {
      const current = slot.job;
      if (!current || current.id !== id) return;
      slot.job = undefined;
      this.busy.delete(slot);
      // The next job waits for this thread's exit (its 'exit' pumps), not only for the call.
      this.dying.add(slot);
      current.reject(this.o.words.error(this.o.words.deadline(this.o.deadlineMs / 1000)));
      void slot.worker.terminate();
    }, this.o.deadlineMs);
  }
}

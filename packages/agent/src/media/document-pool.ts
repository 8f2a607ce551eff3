// Documents are read in worker threads with a deadline (as tools/html-pool.ts does for pages): the
// agent host serves every tenant from one event loop, so a PDF that is slow or hostile to parse
// runs in a thread that is terminated when it overstays, and idle threads are ended after a few
// seconds so the host's memory returns to its idle level once the documents are read.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { DocumentJob, DocumentResult } from './document-worker.js';

export class UnreadableDocumentError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnreadableDocumentError';
  }
}

export interface DocumentPoolOptions {
  size?: number;
  deadlineMs?: number;
  maxQueued?: number;
  /** An idle thread is ended after this long (pdf.js holds tens of MB per thread). */
  idleMs?: number;
}

export interface ReadDocument {
  text: string;
  truncated?: string;
}

interface Job {
  kind: DocumentJob['kind'];
  bytes: Uint8Array;
  maxChars: number;
  maxPages: number;
  resolve: (r: ReadDocument) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  idleTimer?: NodeJS.Timeout;
}

const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './document-worker.ts' : './document-worker.js', import.meta.url);

function newWorker(options: ConstructorParameters<typeof Worker>[1]): Worker {
  if (!FROM_SOURCE) return new Worker(WORKER_URL, options);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const boot = `import(${tsx}).then((t) => { t.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(boot, { ...options, eval: true });
}

export class DocumentPool {
  private readonly size: number;
  private readonly deadlineMs: number;
  private readonly maxQueued: number;
  private readonly idleMs: number;
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 0;
  private closed = false;

  constructor(opts: DocumentPoolOptions = {}) {
    // One core is left to the event loop that serves every tenant.
    this.size = Math.max(1, opts.size ?? Math.min(2, availableParallelism() - 1));
    this.deadlineMs = opts.deadlineMs ?? 10_000;
    this.maxQueued = opts.maxQueued ?? 32;
    this.idleMs = opts.idleMs ?? 5_000;
  }

  /** Threads alive now (busy or idle), for tests and the benchmark. */
  get threads(): number {
    return this.idle.length + this.busy.size;
  }

  read(kind: Job['kind'], bytes: Uint8Array, limits: { maxChars: number; maxPages: number }): Promise<ReadDocument> {
    if (this.closed) return Promise.reject(new Error('the document reader is closed'));
    return new Promise((resolve, reject) => {
      if (this.queue.length >= this.maxQueued) {
        reject(new UnreadableDocumentError('too many documents are being read right now'));
        return;
      }
      // A view into a shared buffer (Node pools small Buffers) is copied: only its own bytes may move.
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      this.queue.push({ kind, bytes: own, ...limits, resolve, reject });
      this.pump();
    });
  }

  async close() {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new Error('the document reader is closed'));
    const all = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    for (const slot of all) {
      clearTimeout(slot.idleTimer);
      if (slot.job) {
        clearTimeout(slot.job.timer);
        slot.job.reject(new Error('the document reader is closed'));
      }
    }
    await Promise.all(all.map((slot) => slot.worker.terminate()));
  }

  private pump() {
    while (this.queue.length > 0) {
      let slot = this.idle.pop();
      if (slot) clearTimeout(slot.idleTimer);
      else {
        if (this.busy.size >= this.size) return;
        slot = this.spawn();
      }
      this.start(slot, this.queue.shift()!);
    }
  }

  private rest(slot: Slot) {
    this.idle.push(slot);
    slot.idleTimer = setTimeout(() => {
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  private spawn(): Slot {
    // A PDF bomb (deep nesting, huge streams) fails in its thread: capped heap and stack.
    const worker = newWorker({ resourceLimits: { maxOldGenerationSizeMb: 192, stackSizeMb: 4 } });
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', (msg: DocumentResult) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      clearTimeout(job.timer);
      slot.job = undefined;
      this.busy.delete(slot);
      this.rest(slot);
      if (msg.error !== undefined) job.reject(new UnreadableDocumentError(msg.error));
      else job.resolve({ text: msg.text ?? '', ...(msg.truncated ? { truncated: msg.truncated } : {}) });
      this.pump();
    });
    const fail = (reason: string) => {
      const job = slot.job;
      slot.job = undefined;
      clearTimeout(slot.idleTimer);
      this.busy.delete(slot);
      const at = this.idle.indexOf(slot);
      if (at >= 0) this.idle.splice(at, 1);
      if (job) {
        clearTimeout(job.timer);
        job.reject(new UnreadableDocumentError(reason));
      }
      if (!this.closed) this.pump();
    };
    worker.on('error', (err) => fail(`it is too complex to read (${err.message})`));
    worker.on('exit', () => fail('it is too complex to read'));
    return slot;
  }

  private start(slot: Slot, job: Job) {
    const id = ++this.nextId;
    const timer = setTimeout(() => {
      const current = slot.job;
      if (!current || current.id !== id) return;
      slot.job = undefined;
      this.busy.delete(slot);
      current.reject(new UnreadableDocumentError(`it could not be read within ${this.deadlineMs / 1000} s`));
      void slot.worker.terminate();
      this.pump();
    }, this.deadlineMs);
    slot.job = { ...job, id, timer };
    this.busy.add(slot);
    const msg: DocumentJob = { id, kind: job.kind, bytes: job.bytes, maxChars: job.maxChars, maxPages: job.maxPages };
    // The bytes move to the thread (no copy); the turn no longer holds them.
    slot.worker.postMessage(msg, [job.bytes.buffer as ArrayBuffer]);
  }
}

let shared: DocumentPool | undefined;

/** One pool per host process: every tenant shares the same bounded set of threads. */
export function sharedDocumentPool(): DocumentPool {
  shared ??= new DocumentPool();
  return shared;
}

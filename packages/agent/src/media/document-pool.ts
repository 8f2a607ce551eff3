// Documents are read in worker threads with a deadline (threads/thread-pool.ts, as the web tool's
// pages are): a PDF that is slow or hostile to parse runs in a thread that is terminated when it
// overstays; each assistant's documents wait in their own queue, so one tenant's 20 large PDFs do
// not hold up another tenant's small file; idle threads end after a few seconds, so the host's
// memory returns to its idle level once the documents are read.
import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ThreadPool, type PoolWords, workerUrl } from '../threads/thread-pool.js';
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
  /** Documents allowed to wait in all (a tenant with nothing waiting still gets in). */
  maxQueued?: number;
  /** Documents one tenant may have waiting. */
  maxQueuedPerTenant?: number;
  /** An idle thread is ended after this long (pdf.js holds tens of MB per thread). */
  idleMs?: number;
  /** A full GC of the host's heap when the last thread has ended (default true). */
  compactWhenIdle?: boolean;
}

export interface ReadDocument {
  text: string;
  truncated?: string;
}

const words: PoolWords = {
  error: (message) => new UnreadableDocumentError(message),
  busy: 'too many documents are being read right now',
  deadline: (s) => `it could not be read within ${s} s`,
  crashed: (detail) => `it is too complex to read${detail ? ` (${detail})` : ''}`,
  closed: 'the document reader is closed',
};

let compact: (() => void) | undefined;
/**
 * One full, compacting collection of the host's heap once a burst of documents is over (the pool
 * is back at zero threads): reading 20 PDFs grows V8's committed heap by several MB of pages
 * that its memory reducer does not give back while the host keeps serving (bench:media). One
 * major GC per burst is what V8 would run on its own at some point anyway.
 */
function compactHeap() {
  if (!compact) {
    setFlagsFromString('--expose-gc');
    compact = runInNewContext('gc') as () => void;
  }
  compact();
}

export class DocumentPool {
  private readonly pool: ThreadPool<Omit<DocumentJob, 'id'>, Omit<DocumentResult, 'id'>>;

  constructor(opts: DocumentPoolOptions = {}) {
    const maxQueued = opts.maxQueued ?? 32;
    this.pool = new ThreadPool({
      name: 'document',
      worker: workerUrl(import.meta.url, 'document-worker'),
      // One core is left to the event loop that serves every tenant.
      size: Math.max(1, opts.size ?? Math.min(2, availableParallelism() - 1)),
      deadlineMs: opts.deadlineMs ?? 10_000,
      maxQueued,
      // A user may send a whole batch of files at once: a tenant's share is the whole queue, and
      // fairness comes from taking the tenants' documents in turn.
      maxQueuedPerTenant: Math.max(1, opts.maxQueuedPerTenant ?? maxQueued),
      idleMs: opts.idleMs ?? 5_000,
      // A PDF bomb (deep nesting, huge streams) fails in its thread: capped heap and stack.
      resourceLimits: { maxOldGenerationSizeMb: 192, stackSizeMb: 4 },
      words,
      onEmpty: opts.compactWhenIdle === false ? undefined : compactHeap,
    });
  }

  /** Threads alive now (busy or idle), for tests and the benchmark. */
  get threads(): number {
    return this.pool.threads;
  }

  /** The most threads alive at once so far (a thread being terminated counts until it has exited). */
  get peakThreads(): number {
    return this.pool.peakThreads;
  }

  /** `tenant` names whose document this is (the assistant); each tenant's wait in their own queue. */
  async read(
    kind: DocumentJob['kind'],
    bytes: Uint8Array,
    limits: { maxChars: number; maxPages: number },
    tenant = '',
  ): Promise<ReadDocument> {
    // A view into a shared buffer (Node pools small Buffers) is copied into a buffer of its own: only
    // its own bytes may move. Not with Buffer#slice, which is a view of the same pool: moving the
    // pool would take every other small Buffer's bytes with it, and Node 22+ refuses it outright
    // (DataCloneError: the pool is marked untransferable).
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
    // The bytes move to the thread (no copy); the turn no longer holds them.
    const out = await this.pool.run(tenant, { kind, bytes: own, ...limits }, [own.buffer as ArrayBuffer]);
    if (out.error !== undefined) throw new UnreadableDocumentError(out.error);
    return { text: out.text ?? '', ...(out.truncated ? { truncated: out.truncated } : {}) };
  }

  close() {
    return this.pool.close();
  }
}

/** What a turn asks of the pool: tests hold documents in a stand-in until they let them go. */
export type DocumentReader = Pick<DocumentPool, 'read'>;

let shared: DocumentPool | undefined;

/** One pool per host process: every tenant shares the same bounded set of threads. */
export function sharedDocumentPool(): DocumentPool {
  shared ??= new DocumentPool();
  return shared;
}

// WAL checkpoints off the event loop. SQLite copies the write-ahead log back into the database
// file every 1,000 pages, in the connection that commits the page that crosses the mark, and with
// synchronous=NORMAL that checkpoint fsyncs the log and the database: 5 to 10 ms during which the
// control plane's one event loop answers nobody (seen as a p99 tail on every write path). So the
// main connection leaves checkpoints to a worker thread with a connection of its own, which runs a
// PASSIVE checkpoint (never waits, never blocks the writer) a few times a second. The main
// connection keeps a far mark (10,000 pages, 40 MB) as a backstop should the worker stop.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export const BACKSTOP_PAGES = 10_000;

// CommonJS, evaluated in the worker: no file of its own to find from dist/ and from sources alike.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 0');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, intervalMs = 250, delayMs = 1000): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  // Started a second after the store opens: booting a thread is CPU a cold start need not spend
  // before it answers (docs/decisions/0027-scale.md); the backstop covers the wait.
  let worker: Worker | undefined;
  let exited: Promise<void> | undefined;
  const start = setTimeout(() => {
    worker = new Worker(WORKER, { eval: true, workerData: { file, module, intervalMs } });
    // Never what keeps the process alive; an error only leaves the backstop in charge.
    worker.unref();
    worker.on('error', () => {});
    const w = worker;
    exited = new Promise<void>((r) => w.once('exit', () => r()));
  }, delayMs);
  start.unref();
  return {
    async stop() {
      clearTimeout(start);
      if (!worker) return;
      // Held while it finishes its last checkpoint and closes, so the process waits for that.
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

// Worker thread that reads a document's text: PDFs with unpdf (pdf.js), text formats by decoding.
// It runs off the host's event loop under a deadline and memory cap (document-pool.ts): a PDF
// bomb costs this thread, never another tenant's turn.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

// On Linux a thread has its own nice value: this one yields the CPU to the host's event loop, so
// reading a tenant's PDFs waits for other tenants' chat rather than the other way round.
try {
  setPriority(19);
} catch {
  /* not permitted here: the deadline still bounds the work */
}

export interface DocumentJob {
  id: number;
  kind: 'pdf' | 'text';
  bytes: Uint8Array;
  maxChars: number;
  maxPages: number;
}

export interface DocumentResult {
  id: number;
  text?: string;
  /** Why the text stops early, for the note the user sees. */
  truncated?: string;
  error?: string;
}

// pdf.js loads before the thread says it is ready: its load (seconds on a busy host) is not the
// first document's time (threads/thread-pool.ts).
const { getDocumentProxy } = await import('unpdf');

async function readPdf(job: DocumentJob): Promise<Omit<DocumentResult, 'id'>> {
  const pdf = await getDocumentProxy(job.bytes, { isEvalSupported: false, stopAtErrors: true });
  try {
    const pages = Math.min(pdf.numPages, job.maxPages);
    let text = '';
    for (let i = 1; i <= pages; i++) {
      const page = await pdf.getPage(i);
      const content = await page.getTextContent();
      const line = content.items.map((it) => ('str' in it ? it.str : '')).join(' ');
      page.cleanup();
      text += (i > 1 ? '\n\n' : '') + line;
      if (text.length > job.maxChars) {
        return { text: text.slice(0, job.maxChars), truncated: `the first ${job.maxChars} characters` };
      }
    }
    if (pdf.numPages > pages) return { text, truncated: `the first ${pages} of ${pdf.numPages} pages` };
    return { text };
  } finally {
    await pdf.destroy();
  }
}

function readText(job: DocumentJob): Omit<DocumentResult, 'id'> {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NULs mean a binary file, not text
  const text = new TextDecoder('utf-8').decode(job.bytes).replace(/\u0000/g, '');
  if (text.length > job.maxChars)
    return { text: text.slice(0, job.maxChars), truncated: `the first ${job.maxChars} characters` };
  return { text };
}

parentPort?.on('message', async (job: DocumentJob) => {
  try {
    const out = job.kind === 'pdf' ? await readPdf(job) : readText(job);
    parentPort!.postMessage({ id: job.id, ...out } satisfies DocumentResult);
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: (err as Error).message?.slice(0, 200) || 'unreadable' });
  }
});

// Loaded: the pool starts a job's deadline from here (threads/thread-pool.ts).
parentPort?.postMessage({ ready: true });

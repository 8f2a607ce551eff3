// The document pool (media/document-pool.ts): a document that overstays its deadline is refused and
// its thread ended, the pool keeps reading others, and idle threads end so their memory goes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makePdf } from '@berth/testkit';
import { DocumentPool, UnreadableDocumentError } from '../src/media/document-pool.js';
import { readDocument } from '../src/media/documents.js';

const limits = { maxChars: 20_000, maxPages: 100 };

/** A pool for one test (or one part of it), closed after it whatever it did. */
async function withPool(
  opts: ConstructorParameters<typeof DocumentPool>[0],
  body: (pool: DocumentPool) => Promise<void>,
) {
  const pool = new DocumentPool(opts);
  try {
    await body(pool);
  } finally {
    await pool.close();
  }
}

/** A PDF of `pages` pages of `words` words each: one that keeps a pool thread busy a while. */
const wordyPdf = (pages: number, words: number) =>
  makePdf(Array.from({ length: pages }, (_, i) => `page ${i} ${'words '.repeat(words)}`));

test('a document past its deadline is refused by name; the next one is read', async () => {
  await withPool({ size: 1, deadlineMs: 1, idleMs: 60_000 }, async (pool) => {
    const big = wordyPdf(300, 200);
    await assert.rejects(pool.read('pdf', big, limits), (err: Error) => {
      assert.ok(err instanceof UnreadableDocumentError);
      assert.match(err.message, /could not be read within 0.001 s/);
      return true;
    });
  });
  await withPool({ size: 1, deadlineMs: 30_000, idleMs: 200 }, async (roomy) => {
    const read = await readDocument('a.pdf', 'application/pdf', makePdf(['Hello from page one']), roomy);
    assert.equal(read.text, 'Hello from page one');
    assert.equal(roomy.threads, 1);
    // Idle threads end (pdf.js holds tens of MB each).
    const end = Date.now() + 10_000;
    while (roomy.threads > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    assert.equal(roomy.threads, 0);
  });
});

test('a thread ended at its deadline has exited before its replacement starts: a pool of one never runs two', async () => {
  await withPool({ size: 1, deadlineMs: 1, idleMs: 60_000 }, async (pool) => {
    const big = () => wordyPdf(300, 200);
    const reads = [pool.read('pdf', big(), limits), pool.read('pdf', big(), limits), pool.read('pdf', big(), limits)];
    for (const read of reads) await assert.rejects(read, /could not be read within/);
    // Each held up to its heap cap while it was torn down; side by side they stacked up (issue 57 R4).
    assert.equal(pool.peakThreads, 1);
  });
});

test('text formats are decoded and cut with the part that was read named; binary with a text name is refused', async () => {
  await withPool({ size: 1, idleMs: 100 }, async (pool) => {
    const json = await readDocument('data.json', 'application/json', Buffer.from('{"a": [1, 2, 3]}'), pool);
    assert.equal(json.text, '{"a": [1, 2, 3]}');
    assert.equal(json.cut, undefined);
    const long = await readDocument('notes.md', 'text/markdown', Buffer.from('# x\n'.repeat(10_000)), pool);
    assert.equal(long.text.length <= 20_000, true);
    assert.equal(long.cut, 'the first 20000 characters');
    await assert.rejects(
      readDocument('notes.txt', 'text/plain', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]), pool),
      /not a PDF/,
    );
  });
});

test("one tenant's 20 large PDFs do not hold up another tenant's small document", async () => {
  await withPool({ size: 1, deadlineMs: 60_000, idleMs: 200 }, async (pool) => {
    const large = () => wordyPdf(100, 300);
    const finished: string[] = [];
    const burst = Array.from({ length: 20 }, (_, i) =>
      pool.read('pdf', large(), limits, 'tenant-a').then(() => finished.push(`a${i}`)),
    );
    const small = pool.read('text', Buffer.from('a small note'), limits, 'tenant-b').then((r) => {
      finished.push('b');
      return r.text;
    });
    assert.equal(await small, 'a small note');
    await Promise.all(burst);
    // B waited behind the PDF being read and at most A's next in turn, not A's backlog of 20; and
    // none of A's batch was refused.
    assert.ok(finished.indexOf('b') <= 2, `b was read after ${finished.indexOf('b')} of A's PDFs`);
    assert.equal(finished.length, 21);
  });
});

test("a small document in Node's shared Buffer pool is copied, not moved: the other Buffers there keep their bytes", async () => {
  await withPool({ size: 1, idleMs: 100 }, async (pool) => {
    // Small Buffers share one pooled ArrayBuffer: moving it to the thread would empty its neighbours
    // (Node 20), or be refused (Node 22+: DataCloneError, every small document unreadable).
    const neighbour = Buffer.from('a neighbour in the pool');
    const doc = Buffer.from('Agenda\n1. budget\n');
    assert.equal(doc.buffer, neighbour.buffer, 'both are views of the pool (the premise of this test)');
    const read = await readDocument('agenda.txt', 'text/plain', doc, pool);
    assert.equal(read.text, 'Agenda\n1. budget');
    assert.equal(neighbour.toString(), 'a neighbour in the pool');
    assert.equal(doc.toString(), 'Agenda\n1. budget\n', 'the caller keeps its copy');
  });
});

test('a thread at rest does not keep its process alive: a host with nothing left to do exits', async () => {
  // A child process reads one PDF with a pool whose threads rest for a minute, then has nothing to
  // do. Attaching the thread's message listener after unref() ref'd it again: the process lived on
  // for the idle time (the host's shutdown and every test file that read a document waited 5 s).
  const pool = new URL('../src/media/document-pool.ts', import.meta.url).href;
  const script = [
    `import { DocumentPool } from ${JSON.stringify(pool)};`,
    `import { makePdf } from '@berth/testkit';`,
    `const pool = new DocumentPool({ size: 1, deadlineMs: 30000, idleMs: 60000 });`,
    `const read = await pool.read('pdf', makePdf(['Hello from page one']), { maxChars: 100, maxPages: 5 });`,
    `console.log(JSON.stringify({ read, threads: pool.threads }));`,
  ].join('\n');
  const loaders = process.execArgv.filter(
    (a, i, all) => a.startsWith('--conditions') || a.startsWith('--import') || all[i - 1] === '--import',
  );
  const child = spawn(process.execPath, [...loaders, '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const outcome = await Promise.race([exited, new Promise<'alive'>((ok) => setTimeout(ok, 20_000, 'alive').unref())]);
  if (outcome === 'alive') child.kill('SIGKILL');
  assert.match(out, /"threads":1/, 'the document was read and its thread was resting');
  assert.equal(outcome, 0, 'the process exited by itself with its pool thread at rest');
});

// The durable intent of each settlement: a line appended to this process's journal file (one
// write(2), no fsync) as the reply is settled, before the batch that books it reaches the store. A
// kill -9 keeps what was written (it is in the kernel's page cache; only a power loss could drop
// it), so the next start replays what the store does not hold yet: the batch that books
// settlements also records how far the journal is booked (`usage_journal_marks`), in the same
// transaction, and batches land in journal order (settle-queue.ts), so a replay books each
// settlement exactly once. One file per process (several may share a data directory); a file is
// emptied whenever everything in it is booked and has grown past 1 MiB, and removed on a clean close.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { JournalMark, Settlement, UsageRepo } from '../platform/store/usage.js';

const FILE = /^usage-journal-(\d+)-[0-9a-f]+\.jsonl$/;
const EMPTY_AFTER_BYTES = 1024 * 1024;
const REPLAY_BATCH = 500;
/** Journals open in this process (two runtimes of one process may share a data directory). */
const mine = new Set<string>();

/** One settlement as a journal line: short keys, the entry as the store takes it. */
interface Line {
  q: number;
  d: string;
  p: string;
  r: number;
  a: string;
  e?: Settlement['entry'];
}

export class UsageJournal {
  readonly name: string;
  private readonly fd: number;
  private bytes = 0;
  /** The next settlement's place (the name is this process's alone, so it starts at 1). */
  private seq = 1;

  private constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.name = `usage-journal-${process.pid}-${randomBytes(4).toString('hex')}`;
    this.fd = openSync(join(dir, `${this.name}.jsonl`), 'a', 0o600);
    mine.add(`${this.name}.jsonl`);
  }

  /** Replays the journals that dead processes left in `dir`, then opens this process's own. */
  static async open(
    dir: string,
    usage: Pick<UsageRepo, 'settleMany' | 'journalMark' | 'forgetJournal'>,
    log: FastifyBaseLogger,
  ): Promise<UsageJournal> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const file of readdirSync(dir)) {
      const m = FILE.exec(file);
      if (!m || mine.has(file) || alive(Number(m[1]))) continue;
      const booked = await replay(join(dir, file), file.slice(0, -'.jsonl'.length), usage);
      if (booked) log.warn({ replies: booked, journal: file }, 'usage a stopped process had not booked was booked now');
    }
    return new UsageJournal(dir);
  }

  /** Writes the settlement's intent and gives it its place; the caller books it with `mark()`. */
  append(s: Settlement): void {
    s.seq = this.seq++;
    const line: Line = {
      q: s.seq,
      d: s.key.deploymentId,
      p: s.key.periodEnd,
      r: s.reservedNano,
      a: s.at.toISOString(),
      ...(s.entry ? { e: s.entry } : {}),
    };
    const text = `${JSON.stringify(line)}\n`;
    this.bytes += writeSync(this.fd, text);
  }

  /** The mark a batch ending with `last` writes with it. */
  mark(last: Settlement): JournalMark | undefined {
    return last.seq === undefined ? undefined : { journal: this.name, seq: last.seq };
  }

  /** Everything appended is booked: the file may start over (seq keeps counting, so marks stay true). */
  booked(): void {
    if (this.bytes < EMPTY_AFTER_BYTES) return;
    ftruncateSync(this.fd, 0);
    this.bytes = 0;
  }

  /** On a clean shutdown with nothing left to book: the file goes. Otherwise it stays for the next start. */
  close(allBooked: boolean): void {
    mine.delete(`${this.name}.jsonl`);
    closeSync(this.fd);
    if (allBooked) unlinkSync(join(this.dir, `${this.name}.jsonl`));
  }
}

/** Whether another process with this pid runs (a restarted container may reuse our own). */
function alive(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Books the lines past the journal's mark (a torn last line was never settled: it is skipped). */
async function replay(
  path: string,
  name: string,
  usage: Pick<UsageRepo, 'settleMany' | 'journalMark' | 'forgetJournal'>,
): Promise<number> {
  const mark = await usage.journalMark(name);
  const items: Settlement[] = [];
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    let l: Line;
    try {
      l = JSON.parse(text) as Line;
    } catch {
      continue;
    }
    if (l.q > mark)
      items.push({
        key: { deploymentId: l.d, periodEnd: l.p },
        reservedNano: l.r,
        entry: l.e,
        at: new Date(l.a),
        seq: l.q,
      });
  }
  for (let i = 0; i < items.length; i += REPLAY_BATCH) {
    const batch = items.slice(i, i + REPLAY_BATCH);
    await usage.settleMany(batch, { journal: name, seq: batch[batch.length - 1]!.seq! });
  }
  unlinkSync(path);
  await usage.forgetJournal(name);
  return items.length;
}

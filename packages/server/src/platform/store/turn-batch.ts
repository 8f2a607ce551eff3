// Statements asked within one turn of the event loop run in one SQLite transaction. Alone, an
// autocommit UPDATE costs 14–18 µs, most of it the commit; ten sharing one cost 2.4 µs each. The
// gateway reserves once per model call, thousands a second (docs/decisions/0033-perf-benches.md).
// prepareQuery's `sharedCommit` builds one; only a database with a direct lane (SQLite, not a
// transaction's handle) gets it.
import type { QueryResult } from 'kysely';
import type { DirectLane } from './direct-lane.js';

type Args = Array<string | number>;

interface Waiting<Row> {
  args: Args;
  resolve(result: QueryResult<Row>): void;
  reject(err: unknown): void;
}

export class TurnBatch<Row> {
  private waiting: Array<Waiting<Row>> | undefined;

  constructor(
    private readonly lane: DirectLane,
    private readonly sql: string,
    private readonly bind: (args: Args) => unknown[],
    /** The statement on its own: when a transaction holds the connection, or the batch failed. */
    private readonly alone: (...args: Args) => Promise<QueryResult<Row>>,
  ) {}

  run(...args: Args): Promise<QueryResult<Row>> {
    return new Promise((resolve, reject) => {
      if (!this.waiting) {
        this.waiting = [];
        setImmediate(() => this.write());
      }
      this.waiting.push({ args, resolve, reject });
    });
  }

  private write() {
    const batch = this.waiting ?? [];
    this.waiting = undefined;
    let done: { value: Array<QueryResult<unknown>> } | undefined;
    try {
      done = this.lane.transaction((run) => batch.map((w) => run({ sql: this.sql, parameters: this.bind(w.args) })));
    } catch {
      // The whole batch rolled back: each runs again on its own, so a failure is only its caller's.
      done = undefined;
    }
    if (done) for (const [i, w] of batch.entries()) w.resolve(done.value[i] as QueryResult<Row>);
    else for (const w of batch) this.alone(...w.args).then(w.resolve, w.reject);
  }
}

// Scheduled messages and tasks, one row each. Delivery claims a row before it sends (one
// conditional UPDATE that moves next_at or ends the row), so a restart, a second timer or a slow
// send can never deliver the same occurrence twice.
import type Database from 'better-sqlite3';

export type ScheduleStatus = 'active' | 'done' | 'cancelled' | 'missed';

export interface Schedule {
  id: string;
  agent: string;
  /** The end user who asked ("tg:<user id>"). */
  user: string;
  /** Where to deliver ("telegram:<chat id>"). */
  chat: string;
  text: string;
  task: boolean;
  at: string | null;
  cron: string | null;
  timezone: string | null;
  /** Epoch milliseconds of the next occurrence. */
  nextAt: number;
  status: ScheduleStatus;
  sent: number;
  createdAt: string;
}

interface Row extends Omit<Schedule, 'task' | 'nextAt' | 'createdAt'> {
  task: number;
  next_at: number;
  created_at: string;
}

const toSchedule = (r: Row): Schedule => ({
  id: r.id,
  agent: r.agent,
  user: r.user,
  chat: r.chat,
  text: r.text,
  task: r.task === 1,
  at: r.at,
  cron: r.cron,
  timezone: r.timezone,
  nextAt: r.next_at,
  status: r.status,
  sent: r.sent,
  createdAt: r.created_at,
});

export class ScheduleRepo {
  private readonly q;

  constructor(private readonly db: Database.Database) {
    this.q = {
      insert: db.prepare(
        `INSERT INTO schedules (id, agent, user, chat, text, task, at, cron, timezone, next_at, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?)`,
      ),
      countActive: db.prepare("SELECT COUNT(*) AS n FROM schedules WHERE agent = ? AND status = 'active'"),
      countActiveOf: db.prepare(
        "SELECT COUNT(*) AS n FROM schedules WHERE agent = ? AND user = ? AND status = 'active'",
      ),
      list: db.prepare(
        "SELECT * FROM schedules WHERE agent = ? AND user = ? AND status = 'active' ORDER BY next_at, id",
      ),
      listAll: db.prepare("SELECT * FROM schedules WHERE agent = ? AND status = 'active' ORDER BY next_at, id"),
      cancel: db.prepare(
        "UPDATE schedules SET status = 'cancelled' WHERE id = ? AND agent = ? AND user = ? AND status = 'active'",
      ),
      cancelAny: db.prepare(
        "UPDATE schedules SET status = 'cancelled' WHERE id = ? AND agent = ? AND status = 'active'",
      ),
      cancelAll: db.prepare("UPDATE schedules SET status = 'cancelled' WHERE agent = ? AND status = 'active'"),
      nextAfter: db.prepare(
        "SELECT MIN(next_at) AS t FROM schedules WHERE status = 'active' AND next_at > ? AND agent IN (SELECT value FROM json_each(?))",
      ),
      due: db.prepare(
        "SELECT * FROM schedules WHERE status = 'active' AND next_at <= ? AND agent IN (SELECT value FROM json_each(?)) ORDER BY next_at LIMIT ?",
      ),
      claim: db.prepare(
        "UPDATE schedules SET next_at = ?, status = ?, sent = sent + ? WHERE id = ? AND status = 'active' AND next_at = ?",
      ),
      unclaim: db.prepare(
        "UPDATE schedules SET next_at = ?, status = 'active', sent = sent - 1 WHERE id = ? AND next_at = ? AND status = ?",
      ),
      get: db.prepare('SELECT * FROM schedules WHERE id = ?'),
    };
  }

  /** Runs `fn` in one store transaction (the scheduler's claims of one pass: one commit). */
  transaction(fn: () => void): void {
    this.db.transaction(fn)();
  }

  add(s: Omit<Schedule, 'status' | 'sent' | 'createdAt'>): Schedule {
    const createdAt = new Date().toISOString();
    this.q.insert.run(
      s.id,
      s.agent,
      s.user,
      s.chat,
      s.text,
      s.task ? 1 : 0,
      s.at,
      s.cron,
      s.timezone,
      s.nextAt,
      createdAt,
    );
    return { ...s, status: 'active', sent: 0, createdAt };
  }

  countActive(agent: string): number {
    return (this.q.countActive.get(agent) as { n: number }).n;
  }

  countActiveOf(agent: string, user: string): number {
    return (this.q.countActiveOf.get(agent, user) as { n: number }).n;
  }

  list(agent: string, user: string): Schedule[] {
    return (this.q.list.all(agent, user) as Row[]).map(toSchedule);
  }

  /** Every end user's active schedules of one assistant, soonest first (its owner's view: at most 50). */
  listAll(agent: string): Schedule[] {
    return (this.q.listAll.all(agent) as Row[]).map(toSchedule);
  }

  get(id: string): Schedule | undefined {
    const r = this.q.get.get(id) as Row | undefined;
    return r && toSchedule(r);
  }

  /** Only the user who made it can cancel it; anyone else's id is "not found". */
  cancel(agent: string, user: string, id: string): boolean {
    return this.q.cancel.run(id, agent, user).changes === 1;
  }

  /**
   * The owner cancels any end user's schedule of their assistant. An occurrence already claimed
   * for sending goes out (a one-off is no longer active: false); nothing after it does.
   */
  cancelAny(agent: string, id: string): boolean {
    return this.q.cancelAny.run(id, agent).changes === 1;
  }

  /** Cancels every active schedule of one assistant; how many. */
  cancelAll(agent: string): number {
    return this.q.cancelAll.run(agent).changes;
  }

  /** The earliest occurrence after `now` among the given agents' active schedules. */
  nextAfter(now: number, agents: string[]): number | undefined {
    return (this.q.nextAfter.get(now, JSON.stringify(agents)) as { t: number | null }).t ?? undefined;
  }

  due(now: number, agents: string[], limit = 500): Schedule[] {
    return (this.q.due.all(now, JSON.stringify(agents), limit) as Row[]).map(toSchedule);
  }

  /**
   * Claims the occurrence at `s.nextAt`: moves the row to `next` (a repeat's next occurrence) or
   * ends it with `end`. False when someone else claimed, cancelled or moved it first.
   */
  claim(
    s: Pick<Schedule, 'id' | 'nextAt'>,
    next: { nextAt: number } | { end: ScheduleStatus },
    sent: boolean,
  ): boolean {
    const [nextAt, status] = 'end' in next ? [s.nextAt, next.end] : [next.nextAt, 'active'];
    return this.q.claim.run(nextAt, status, sent ? 1 : 0, s.id, s.nextAt).changes === 1;
  }

  /**
   * Hands back a claim whose send never started: the row returns to the occurrence at `s.nextAt`,
   * unless something changed it since (a cancel, another claim). True when it was handed back.
   */
  unclaim(s: Pick<Schedule, 'id' | 'nextAt'>, claimedAs: { nextAt: number; status: ScheduleStatus }): boolean {
    return this.q.unclaim.run(s.nextAt, s.id, claimedAs.nextAt, claimedAs.status).changes === 1;
  }
}

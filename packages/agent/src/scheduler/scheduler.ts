// One timer per host for every assistant's scheduled messages. It sleeps until the earliest
// active occurrence of a running assistant, claims each due row in the store (claim-before-send:
// the row moves on before anything is sent, so a restart or a second pass never sends twice) and
// hands it to that assistant's delivery. Assistants not registered here (stopped or deleted, or
// on another host) are never delivered for.
import type { Logger } from 'pino';
import type { Schedule, ScheduleRepo } from '../storage/schedules.js';
import { nextOccurrence } from '../tools/schedule/when.js';
import { counters, type ScheduledOutcome } from '../ops/counters.js';

/** What a delivery did with a due occurrence (metrics; a thrown error counts as failed too). */
export type DeliveryOutcome = Extract<ScheduledOutcome, 'sent' | 'refused' | 'skipped' | 'failed'>;

export interface Delivery {
  /** False while the channel of `s` cannot send yet (still connecting): the row waits, unclaimed. */
  ready(s: Schedule): boolean;
  /** 'unsent': nothing left (the channel stopped first), so the claim goes back to the store. */
  deliver(s: Schedule): Promise<DeliveryOutcome | 'unsent'>;
}

export interface SchedulerOptions {
  /** An occurrence found later than this (the host was down, the assistant stopped) is skipped, not sent late. */
  graceMs: number;
  /** Deliveries in flight at once across the host (each holds a connection to Telegram). */
  concurrency: number;
  /**
   * Deliveries in flight at once for one assistant. Sends of different bots go side by side (a
   * burst due at one second spreads over many bots); one bot's burst cannot take every slot, and
   * its own pacing (Telegram: 30 a second per bot, 1 a second per chat) orders the rest.
   */
  perAssistant: number;
  /** Rows claimed per store read. */
  batch: number;
  /**
   * The time the scheduler claims by (ms since the epoch). The system clock, but for tests that move
   * a host's clock forward (scheduler/test-clock.ts) so a reminder an hour away is due at once.
   */
  now: () => number;
}

export const DEFAULT_SCHEDULER_OPTIONS: SchedulerOptions = {
  graceMs: 3_600_000,
  concurrency: 128,
  perAssistant: 4,
  batch: 500,
  now: () => Date.now(),
};
/** Longest sleep: a changed wall clock is noticed within this. */
const MAX_SLEEP_MS = 300_000;
const NOT_READY_RETRY_MS = 1000;
/**
 * Passes are at least this far apart: a burst of reminders due a millisecond apart is claimed in
 * batches (one store transaction each) instead of one timer and two queries per row.
 */
const MIN_GAP_MS = 10;

/** A claimed occurrence waiting for its send; `release` hands the claim back if it never starts. */
interface Job {
  run(): Promise<void>;
  release(): void;
}

export class Scheduler {
  private readonly targets = new Map<string, Delivery>();
  private readonly o: SchedulerOptions;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When `timer` fires (epoch ms; infinite when none is set). */
  private timerAt = Number.POSITIVE_INFINITY;
  /** Assistants registered since the last per-assistant pass, and that pass's timer. */
  private readonly fresh = new Set<string>();
  private freshTimer: ReturnType<typeof setTimeout> | undefined;
  /** Claimed sends waiting for a slot, per assistant (served round robin). */
  private readonly queues = new Map<string, Job[]>();
  private readonly running = new Map<string, number>();
  private active = 0;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  /** Per assistant, who waits for its running sends to end (settled). */
  private readonly settledWaiters = new Map<string, Array<() => void>>();

  constructor(
    private readonly repo: ScheduleRepo,
    private readonly log: Logger,
    opts: Partial<SchedulerOptions> = {},
  ) {
    this.o = { ...DEFAULT_SCHEDULER_OPTIONS, ...opts };
  }

  register(agent: string, delivery: Delivery) {
    this.targets.set(agent, delivery);
    this.wake(agent);
  }

  unregister(agent: string) {
    this.targets.delete(agent);
    this.dropQueued(agent);
    // No pass: a timer set for this assistant's next row wakes to find it gone and looks again.
  }

  /**
   * Re-reads the earliest due time: of every assistant (a schedule was cancelled, data moved in),
   * or of one that just came (its rows only). Per-assistant passes keep start-up linear: a full
   * pass per registration read every registered assistant's rows, N times (issue 64).
   */
  wake(agent?: string) {
    if (this.closed) return;
    if (agent === undefined) {
      this.arm(0);
      return;
    }
    this.fresh.add(agent);
    this.freshTimer ??= setTimeout(() => {
      this.freshTimer = undefined;
      const agents = [...this.fresh].filter((a) => this.targets.has(a));
      this.fresh.clear();
      if (agents.length) this.guarded(() => this.pass(agents));
    }, 0);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.freshTimer);
    this.targets.clear();
    this.dropQueued();
  }

  /**
   * Resolves once `agent`'s sends still running have ended, or after `deadlineMs`. A stop awaits it
   * after its channels stopped: a send those cut short hands its claim back (release) a few ticks
   * later, and a move's export or the store's close must come after that, or the reminder is lost.
   */
  settled(agent: string, deadlineMs = 5_000): Promise<void> {
    if (!this.running.has(agent)) return Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const ended = new Promise<void>((r) => {
      const list = this.settledWaiters.get(agent);
      if (list) list.push(r);
      else this.settledWaiters.set(agent, [r]);
    });
    return Promise.race([ended, new Promise<void>((r) => (timer = setTimeout(r, deadlineMs)))]).finally(() =>
      clearTimeout(timer),
    );
  }

  /** Resolves once no delivery is queued or running (tests, benchmarks, shutdown). */
  idle(): Promise<void> {
    if (this.active === 0 && this.queues.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** The full pass's timer fires `delay` ms from now (the one timer of every assistant). */
  private arm(delay: number) {
    clearTimeout(this.timer);
    this.timerAt = this.o.now() + delay;
    this.timer = setTimeout(() => this.tick(), delay);
  }

  private tick() {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    if (this.closed) return;
    this.guarded(() => this.pass());
  }

  private guarded(pass: () => void) {
    try {
      pass();
    } catch (err) {
      // A store error must not take the host down with it: say so and look again shortly.
      this.log.error({ err: (err as Error).message }, 'scheduler pass failed');
      if (!this.closed && this.timerAt > this.o.now() + NOT_READY_RETRY_MS) this.arm(NOT_READY_RETRY_MS);
    }
  }

  /**
   * Claims what is due for `only` (every registered assistant when undefined), then sets the timer
   * for the earliest next row: a pass over a few assistants only brings the timer forward.
   */
  private pass(only?: string[]) {
    const now = this.o.now();
    const agents = only ?? [...this.targets.keys()];
    let waiting = false;
    if (agents.length) {
      for (;;) {
        const rows = this.repo.due(now, agents, this.o.batch);
        let progressed = false;
        const send: Array<[string, Job]> = [];
        this.repo.transaction(() => {
          for (const s of rows) {
            const target = this.targets.get(s.agent);
            if (!target?.ready(s)) {
              waiting = true;
              continue;
            }
            if (this.claim(s, now, send)) progressed = true;
          }
        });
        // Sent once the claims are committed: nothing goes out that a crash could hand out again.
        for (const [agent, job] of send) this.enqueue(agent, job);
        if (rows.length < this.o.batch || !progressed) break;
      }
    }
    if (!agents.length) return;
    let next = this.repo.nextAfter(now, agents);
    if (waiting) next = Math.min(next ?? Number.POSITIVE_INFINITY, now + NOT_READY_RETRY_MS);
    if (next === undefined) return;
    const delay = Math.min(Math.max(MIN_GAP_MS, next - this.o.now()), MAX_SLEEP_MS);
    if (only === undefined || this.o.now() + delay < this.timerAt) this.arm(delay);
  }

  /** Moves the row past this occurrence; sends only what this call claimed, and only in time. */
  private claim(s: Schedule, now: number, send: Array<[string, Job]>): boolean {
    const late = now - s.nextAt > this.o.graceMs;
    const next = s.cron ? nextOccurrence(s.cron, s.timezone, Math.max(now, s.nextAt)) : undefined;
    const claimed = this.repo.claim(
      s,
      next !== undefined ? { nextAt: next } : { end: late ? 'missed' : 'done' },
      !late,
    );
    if (!claimed) return false;
    if (late) {
      counters.scheduledSends.missed++;
      this.log.info(
        { agent: s.agent, schedule: s.id, dueAt: new Date(s.nextAt).toISOString() },
        'schedule skipped: too late',
      );
      return true;
    }
    const claimedAs =
      next !== undefined ? { nextAt: next, status: 'active' as const } : { nextAt: s.nextAt, status: 'done' as const };
    send.push([
      s.agent,
      {
        run: async () => {
          const target = this.targets.get(s.agent);
          if (!target) return this.release(s, claimedAs); // stopped between claim and send
          try {
            const outcome = await target.deliver(s);
            // Stopped while the send waited for its turn: whoever runs the assistant next sends it.
            if (outcome === 'unsent') return this.release(s, claimedAs);
            counters.scheduledSends[outcome]++;
          } catch (err) {
            counters.scheduledSends.failed++;
            this.log.warn({ agent: s.agent, schedule: s.id, err: (err as Error).message }, 'scheduled message failed');
          }
        },
        release: () => this.release(s, claimedAs),
      },
    ]);
    return true;
  }

  /**
   * A claimed occurrence whose send never started (its assistant stopped, moved or the host shut
   * down first) goes back to the store as it was, so whoever runs the assistant next sends it:
   * a restart or a move loses nothing that was only waiting for a slot.
   */
  private release(s: Schedule, claimedAs: { nextAt: number; status: 'active' | 'done' }) {
    try {
      this.repo.unclaim(s, claimedAs);
    } catch (err) {
      this.log.warn({ agent: s.agent, schedule: s.id, err: (err as Error).message }, 'schedule claim not handed back');
    }
  }

  /** Hands back the claims of `agent`'s sends still waiting (all agents' when undefined). */
  private dropQueued(agent?: string) {
    for (const [a, q] of this.queues) {
      if (agent !== undefined && a !== agent) continue;
      for (const job of q) job.release();
      this.queues.delete(a);
    }
    if (this.active === 0 && this.queues.size === 0) for (const r of this.idleWaiters.splice(0)) r();
  }

  private enqueue(agent: string, job: Job) {
    const q = this.queues.get(agent);
    if (q) q.push(job);
    else this.queues.set(agent, [job]);
    this.pump();
  }

  /** Starts what the two bounds allow, one send per assistant per round (round robin). */
  private pump() {
    for (let started = true; started && this.active < this.o.concurrency; ) {
      started = false;
      for (const [agent, q] of this.queues) {
        if (this.active >= this.o.concurrency) return;
        const n = this.running.get(agent) ?? 0;
        if (n >= this.o.perAssistant) continue;
        const job = q.shift()!;
        if (q.length === 0) this.queues.delete(agent);
        this.running.set(agent, n + 1);
        this.active++;
        started = true;
        void job.run().finally(() => this.finished(agent));
      }
    }
  }

  private finished(agent: string) {
    this.active--;
    const n = (this.running.get(agent) ?? 1) - 1;
    if (n > 0) this.running.set(agent, n);
    else {
      this.running.delete(agent);
      for (const r of this.settledWaiters.get(agent) ?? []) r();
      this.settledWaiters.delete(agent);
    }
    this.pump();
    if (this.active === 0 && this.queues.size === 0) for (const r of this.idleWaiters.splice(0)) r();
  }
}

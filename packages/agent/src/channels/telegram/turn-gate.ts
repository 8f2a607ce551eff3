// Fair turns within one bot (issue 57 R3). Polling hands a bot at most maxConcurrent updates at
// once; before this gate one user's 20 slow PDFs took all of them (each turn waiting for the
// host's document thread) and another user's text was not even fetched for minutes. Now:
// - one turn at a time per user (chat and sender): the user's next message waits on their own
//   turn, parked, and a parked update does not count against the bot's updates at once;
// - media (files, photos, voice) take one of a few media lanes per bot, parked while they wait, so
//   words never wait behind anybody's documents and one user holds at most one lane;
// - what may wait is bounded per user and per bot, and a message past the bound is refused in words
//   (the alternative, stopping the poll, would stall every other user again).
// The bound on updates at once is soft by at most the media lanes: a finished turn can unpark both
// its user's next message and another user's file.
// Bursts (issue 62, DESIGN §9.4): a user's words that come within `quietMs` of each other, or while
// their turn runs, join one open burst, answered as one turn once the user is quiet and their turn
// before it has ended. The burst waits parked, so gathering holds no update slot; a message that
// joins one is done at once. A file closes the open burst (its words go first, then the file), so
// nothing is answered out of order.

export interface TurnGateLimits {
  /** Updates handled at once (parked ones not counted); polling fetches no more past it. */
  maxConcurrent: number;
  /** Media turns (download, document reading, transcription, the answer) at once for this bot. */
  mediaAtOnce: number;
  /** Messages of one user waiting for their earlier turn or a media lane. */
  maxWaitingPerUser: number;
  /** Messages waiting in all for this bot. */
  maxWaiting: number;
}

export const DEFAULT_TURN_GATE = { mediaAtOnce: 2, maxWaitingPerUser: 20, maxWaiting: 100 } as const;

/**
 * Messages one burst gathers at most: what a waiting burst holds in memory is bounded (Telegram's
 * messages are at most 4,096 characters), and a flood still becomes several turns, never one
 * unbounded model call. The next message opens the next burst, behind this one.
 */
export const MAX_PER_BURST = 20;

/** A place in a user's line of turns (TurnGate.place). */
export interface Place {
  /** The end of the line when it was taken (settles when the turn before ends). */
  readonly before: Promise<void> | undefined;
  /** How many files of this user took a place before this one (words join across none). */
  readonly files: number;
  leave(): void;
}

/** A burst not yet answered: its messages (mutable until it starts: an edit changes one). */
interface Burst<T> {
  items: T[];
  lastAt: number;
  /** Place.files of its first message: a later message joins only if no file came in between. */
  files: number;
  /** No more joins: it is running, or a file came after it. */
  closed: boolean;
  /** Wakes its quiet wait (a join moved lastAt, or it closed). */
  poke?: () => void;
}

export class TurnGate {
  private active = 0;
  private waiting = 0;
  private readonly waitingBy = new Map<string, number>();
  /** The end of each user's line of turns (the last one in, running or parked). */
  private readonly tails = new Map<string, Promise<void>>();
  private mediaRunning = 0;
  private readonly mediaLine: Array<() => void> = [];
  private roomWaiters: Array<() => void> = [];
  /** Each user's burst that still takes joins. */
  private readonly open = new Map<string, Burst<unknown>>();
  /** Each user's bursts not yet started, oldest first (edits find their message here). */
  private readonly unstarted = new Map<string, Array<Burst<unknown>>>();

  private readonly stopped: Promise<void>;

  constructor(
    private readonly limits: TurnGateLimits,
    private readonly signal: AbortSignal,
  ) {
    this.stopped = new Promise((r) => signal.addEventListener('abort', () => r(), { once: true }));
  }

  /** Polling stops fetching while this is true. */
  get full(): boolean {
    return this.active >= this.limits.maxConcurrent;
  }

  /** Settles when an update is finished or parks (polling's cue to look at `full` again). */
  room(): Promise<void> {
    return new Promise((r) => this.roomWaiters.push(r));
  }

  /** Polling: one update handled, counted from now until it finishes. */
  async handle(work: () => Promise<void>): Promise<void> {
    this.active++;
    try {
      await work();
    } finally {
      this.active--;
      this.wake();
    }
  }

  /**
   * Runs `turn` when `user` has no earlier turn running and, for media, a lane is free. False when
   * it would have to wait and the user's or the bot's waiting line is full (the caller says so).
   */
  async turn(
    user: string,
    media: boolean,
    turn: () => Promise<unknown>,
    ready?: () => Promise<void>,
    place: Place = this.place(user, media),
  ): Promise<boolean> {
    const before = place.before;
    // Waiting behind something counts against the bounds; a burst only gathering its user's words
    // does not (it would have run at once before bursts, and there is one such per user).
    const behind = before !== undefined || (media && this.mediaRunning >= this.limits.mediaAtOnce);
    const mustWait = behind || ready !== undefined;
    const mine = this.waitingBy.get(user) ?? 0;
    if (behind && this.lineFull(mine)) {
      place.leave();
      return false;
    }
    try {
      if (mustWait) await this.parked(user, behind, before, media, ready);
      else if (media) this.mediaRunning++;
      try {
        if (!this.signal.aborted) await turn();
      } finally {
        if (media) this.leaveLane();
      }
      return true;
    } finally {
      place.leave();
    }
  }

  /**
   * A place at the end of the user's line, taken now. Every message takes its place as it arrives
   * (bot.ts arrives()), in the order Telegram sent them, before checks that take different times
   * for words and files; so words written after a file are answered after it, and a file closes
   * the open burst: the words before it are answered first. leave() gives the place up (its turn
   * ended, it joined a burst, or it needed none); the line behind it still waits for what was before.
   */
  place(user: string, media: boolean): Place {
    if (media) {
      this.close(this.open.get(user));
      this.filesBy.set(user, (this.filesBy.get(user) ?? 0) + 1);
    }
    const before = this.tails.get(user);
    let done!: () => void;
    const left = new Promise<void>((r) => {
      done = r;
    });
    const tail = before ? Promise.all([before, left]).then(() => {}) : left;
    this.tails.set(user, tail);
    void tail.then(() => {
      if (this.tails.get(user) !== tail) return;
      this.tails.delete(user);
      this.filesBy.delete(user);
    });
    return { before, files: this.filesBy.get(user) ?? 0, leave: () => done() };
  }
  /** Files placed per user while their line is not empty (Place.files). */
  private readonly filesBy = new Map<string, number>();

  /**
   * A user's words: joins their open burst (true at once), or opens one that is answered as one
   * turn with `turn(items)` when the user has been quiet for `quietMs` and their turn before it has
   * ended. `quietMs` 0: every message is a turn of its own (it may still be edited while it waits).
   * False as turn(): the user's or the bot's waiting line is full. `admit` is asked once, when a
   * burst opens (the budgets a turn takes); refused, the burst and whatever joined it go unanswered,
   * as a message past a budget always has (it said so once).
   */
  async words<T>(
    user: string,
    item: T,
    quietMs: number,
    turn: (items: T[]) => Promise<unknown>,
    admit: () => Promise<boolean> = async () => true,
    place: Place = this.place(user, false),
  ): Promise<boolean> {
    const now = Date.now();
    const open = this.open.get(user) as Burst<T> | undefined;
    if (open && !open.closed && quietMs > 0 && open.items.length < MAX_PER_BURST && open.files === place.files) {
      open.items.push(item);
      open.lastAt = now;
      open.poke?.();
      place.leave();
      return true;
    }
    // Refused before it opens, so no message joins a burst that will never run. A message past a
    // budget was told so once (and then silence): it is not also told that the line is full.
    if (place.before !== undefined && this.lineFull(this.waitingBy.get(user) ?? 0)) {
      place.leave();
      return !(await admit().catch(() => false));
    }
    if (open?.files === place.files) this.close(open);
    const burst: Burst<T> = { items: [item], lastAt: now, closed: quietMs === 0, files: place.files };
    if (!burst.closed) this.open.set(user, burst);
    const waiting = this.unstarted.get(user) ?? [];
    waiting.push(burst);
    this.unstarted.set(user, waiting);
    // Asked at once: a refusal is said now, not after the user has been quiet.
    const admitted = admit().then(
      (ok) => {
        if (!ok) this.close(burst);
        return ok;
      },
      () => {
        this.close(burst);
        return false;
      },
    );
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      this.close(burst);
      const left = (this.unstarted.get(user) ?? []).filter((b) => b !== burst);
      if (left.length) this.unstarted.set(user, left);
      else this.unstarted.delete(user);
    };
    try {
      const run = async () => {
        start();
        if (await admitted) await turn(burst.items);
      };
      return await this.turn(user, false, run, () => this.quiet(burst, quietMs), place);
    } finally {
      start();
    }
  }

  /** The messages of `user` that no turn has started on yet, oldest first. */
  waitingItems<T>(user: string): T[] {
    return (this.unstarted.get(user) ?? []).flatMap((b) => b.items as T[]);
  }

  private close(burst: Burst<unknown> | undefined) {
    if (!burst || burst.closed) return;
    burst.closed = true;
    for (const [user, b] of this.open) if (b === burst) this.open.delete(user);
    burst.poke?.();
  }

  /** Settles once `quietMs` passed since the burst's last message, or it closed, or the bot stops. */
  private async quiet(burst: Burst<unknown>, quietMs: number) {
    while (!burst.closed && !this.signal.aborted) {
      const left = burst.lastAt + quietMs - Date.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.signal.removeEventListener('abort', done);
          burst.poke = undefined;
          resolve();
        };
        const timer = setTimeout(done, left);
        burst.poke = done;
        this.signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  private lineFull(mine: number) {
    return mine >= this.limits.maxWaitingPerUser || this.waiting >= this.limits.maxWaiting;
  }

  private async parked(
    user: string,
    counted: boolean,
    before: Promise<void> | undefined,
    media: boolean,
    ready?: () => Promise<void>,
  ) {
    if (counted) {
      this.waitingBy.set(user, (this.waitingBy.get(user) ?? 0) + 1);
      this.waiting++;
    }
    this.active--;
    this.wake();
    try {
      await before;
      // Gathering starts counting from the user's last message, even one that came while waiting.
      await ready?.();
      if (media) await this.enterLane();
      // Many bursts end their gathering at once (12 chats writing together): each waits for a
      // free slot, so the bound on turns at once holds for them too.
      while (this.full && !this.signal.aborted) await Promise.race([this.room(), this.stopped]);
    } finally {
      this.active++;
      if (counted) {
        this.waiting--;
        const left = (this.waitingBy.get(user) ?? 1) - 1;
        if (left) this.waitingBy.set(user, left);
        else this.waitingBy.delete(user);
      }
    }
  }

  private enterLane(): Promise<void> {
    if (this.mediaRunning < this.limits.mediaAtOnce) {
      this.mediaRunning++;
      return Promise.resolve();
    }
    return new Promise((r) => this.mediaLine.push(r));
  }

  /** The lane passes straight to the first in line (it stays counted), else it is free. */
  private leaveLane() {
    const next = this.mediaLine.shift();
    if (next) next();
    else this.mediaRunning--;
  }

  private wake() {
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const w of waiters) w();
  }
}

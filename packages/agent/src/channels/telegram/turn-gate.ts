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

export class TurnGate {
  private active = 0;
  private waiting = 0;
  private readonly waitingBy = new Map<string, number>();
  /** The end of each user's line of turns (the last one in, running or parked). */
  private readonly tails = new Map<string, Promise<void>>();
  private mediaRunning = 0;
  private readonly mediaLine: Array<() => void> = [];
  private roomWaiters: Array<() => void> = [];

  constructor(
    private readonly limits: TurnGateLimits,
    private readonly signal: AbortSignal,
  ) {}

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
  async turn(user: string, media: boolean, turn: () => Promise<unknown>): Promise<boolean> {
    const before = this.tails.get(user);
    const mustWait = before !== undefined || (media && this.mediaRunning >= this.limits.mediaAtOnce);
    const mine = this.waitingBy.get(user) ?? 0;
    if (mustWait && (mine >= this.limits.maxWaitingPerUser || this.waiting >= this.limits.maxWaiting)) return false;
    let done!: () => void;
    const tail = new Promise<void>((r) => {
      done = r;
    });
    this.tails.set(user, tail);
    try {
      if (mustWait) await this.parked(user, mine, before, media);
      else if (media) this.mediaRunning++;
      try {
        if (!this.signal.aborted) await turn();
      } finally {
        if (media) this.leaveLane();
      }
      return true;
    } finally {
      done();
      if (this.tails.get(user) === tail) this.tails.delete(user);
    }
  }

  private async parked(user: string, mine: number, before: Promise<void> | undefined, media: boolean) {
    this.waitingBy.set(user, mine + 1);
    this.waiting++;
    this.active--;
    this.wake();
    try {
      await before;
      if (media) await this.enterLane();
    } finally {
      this.active++;
      this.waiting--;
      const left = (this.waitingBy.get(user) ?? 1) - 1;
      if (left) this.waitingBy.set(user, left);
      else this.waitingBy.delete(user);
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

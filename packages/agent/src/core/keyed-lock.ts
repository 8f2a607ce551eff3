// Serialises work per key: two turns on one session (core/conversation.ts), or two puts and removes
// of one assistant (runtime/host.ts), run one after the other; a failed one does not stop the next.
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      // The last one out removes the entry, so idle sessions cost no memory.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  get size() {
    return this.tails.size;
  }
}

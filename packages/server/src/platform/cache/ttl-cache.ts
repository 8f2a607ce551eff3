// A small bounded cache with a time to live: enough to keep the chat hot path off the database
// for a few seconds without holding anything a replica restart would miss.
export class TtlCache<K, V> {
  private readonly map = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
    private readonly now = () => Date.now(),
  ) {}

  get(key: K): V | undefined {
    const hit = this.map.get(key);
    if (!hit) return undefined;
    if (hit.until < this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: K, value: V) {
    if (this.ttlMs <= 0) return;
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, { value, until: this.now() + this.ttlMs });
  }

  delete(key: K) {
    this.map.delete(key);
  }
  clear() {
    this.map.clear();
  }
}

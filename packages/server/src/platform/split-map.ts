// A Map (and a Set) of string keys kept as 64 smaller ones. A hash table doubles when it fills,
// copying every entry in one step no loop can slice: one Map of 100,000 worker names did so at
// 65,536 entries in 18–43 ms (the reconciler's longest block at start-up). Split, each part holds
// ~1,600 at 100,000 and its doubling costs well under a millisecond.

const PARTS = 64;

/** The part of a key: FNV-1a of its last four characters (worker names end in a UUID's hex). */
export function partOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = Math.max(0, key.length - 4); i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h >>> 26;
}

export class SplitMap<V> {
  private readonly parts = Array.from({ length: PARTS }, () => new Map<string, V>());

  get size(): number {
    let n = 0;
    for (const p of this.parts) n += p.size;
    return n;
  }

  get(key: string): V | undefined {
    return this.parts[partOf(key)]!.get(key);
  }

  has(key: string): boolean {
    return this.parts[partOf(key)]!.has(key);
  }

  set(key: string, value: V): this {
    this.parts[partOf(key)]!.set(key, value);
    return this;
  }

  delete(key: string): boolean {
    return this.parts[partOf(key)]!.delete(key);
  }

  /** How many parts `forEachIn` walks (so a long walk can yield between two). */
  get partCount(): number {
    return this.parts.length;
  }

  /**
   * One part's entries, with a callback: no entry array and no generator step per entry, which
   * the iterator below costs (a walk of 100,000 entries made ~5 MB of garbage that way).
   */
  forEachIn(part: number, fn: (value: V, key: string) => void): void {
    this.parts[part]!.forEach(fn);
  }

  /**
   * Part by part, each in insertion order. Survives deleting the entry it is at (as a Map's
   * iteration does); an entry added meanwhile is visited only if its part is the current one or
   * still ahead (a Map visits every entry added during its iteration).
   */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const p of this.parts) yield* p;
  }
}

export class SplitSet {
  private readonly map = new SplitMap<true>();

  get size(): number {
    return this.map.size;
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  add(key: string): this {
    this.map.set(key, true);
    return this;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (const [k] of this.map) yield k;
  }
}

/**
 * A map and a set that forget their oldest entries past a limit, so a checker that remembers
 * ids over a capture of any length stays in bounded memory and linear time. One structure for
 * the conversation checker, `lint`, `tap` and the peer.
 *
 * Evicting "the first key" by asking a fresh iterator each time is quadratic on V8: deleted
 * entries stay in the table as holes until it is rebuilt, and every fresh iterator walks over all
 * of them again (lint of 1.2M lines took 18 s, of 1.6M more than 45). One iterator kept for the
 * life of the map walks each hole once: iteration follows insertion order, an entry added (or
 * re-added) later is visited later, and the iterator moves only to evict, so it always stands on
 * the oldest entry still present. Every operation is O(1), amortised.
 */
export class BoundedMap<K, V> {
  private readonly items = new Map<K, V>();
  private oldest: Iterator<K> | undefined;

  /** `forgotten` hears of each entry evicted past the limit (not of those deleted). */
  constructor(
    readonly limit: number,
    private readonly forgotten?: (key: K, value: V) => void,
  ) {
    if (!(limit >= 1)) throw new RangeError(`a bounded map holds at least one entry, not ${limit}`);
  }

  get size(): number {
    return this.items.size;
  }
  get(k: K): V | undefined {
    return this.items.get(k);
  }
  has(k: K): boolean {
    return this.items.has(k);
  }
  set(k: K, v: V): void {
    // the size first: below the limit (nearly always) a set is one lookup, not two
    if (this.items.size >= this.limit && !this.items.has(k)) this.evict();
    this.items.set(k, v);
  }
  delete(k: K): boolean {
    return this.items.delete(k);
  }
  values(): IterableIterator<V> {
    return this.items.values();
  }
  /** Forgets every entry (none is reported as forgotten). */
  clear(): void {
    this.items.clear();
    this.oldest = undefined;
  }

  private evict(): void {
    this.oldest ??= this.items.keys();
    let next = this.oldest.next();
    if (next.done) {
      // an iterator that once ran off the end stays there: start a new walk
      this.oldest = this.items.keys();
      next = this.oldest.next();
    }
    if (next.done) return;
    const value = this.items.get(next.value)!;
    this.items.delete(next.value);
    this.forgotten?.(next.value, value);
  }
}

export class BoundedSet<T> {
  private readonly map: BoundedMap<T, true>;
  constructor(limit: number) {
    this.map = new BoundedMap(limit);
  }
  get size(): number {
    return this.map.size;
  }
  has(v: T): boolean {
    return this.map.has(v);
  }
  add(v: T): void {
    // setting a present key again keeps its place in the order, as skipping it would
    this.map.set(v, true);
  }
  delete(v: T): boolean {
    return this.map.delete(v);
  }
}

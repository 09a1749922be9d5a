const NONE: ReadonlyMap<unknown, unknown> = new Map<unknown, unknown>();

/**
 * A Map for tables that hold one entry nearly all the time and go back to none (requests being
 * served or awaiting their answer, one at a time): V8 gives a Map a new backing table as it goes
 * from one entry to none and back, about 150 bytes per round. Here the only entry sits in two
 * fields; a real Map is used only while there are several, and insertion order is kept.
 */
export class OneMap<K, V> {
  private oneKey: K | undefined;
  private oneValue: V | undefined;
  private has1 = false;
  /** Every entry while there are two or more (then `has1` is false); made when first needed. */
  private many: Map<K, V> | undefined;

  get size(): number {
    return this.has1 ? 1 : (this.many?.size ?? 0);
  }

  has(key: K): boolean {
    if (!this.has1) return this.many !== undefined && this.many.has(key);
    const one = this.oneKey;
    // SameValueZero, as a Map compares keys
    return one === key || (one !== one && key !== key);
  }

  get(key: K): V | undefined {
    if (this.has1) return this.has(key) ? this.oneValue : undefined;
    return this.many === undefined || this.many.size === 0 ? undefined : this.many.get(key);
  }

  set(key: K, value: V): this {
    if (this.has1) {
      if (this.has(key)) {
        this.oneValue = value;
        return this;
      }
      const many = (this.many ??= new Map());
      many.set(this.oneKey as K, this.oneValue as V);
      this.dropOne();
      many.set(key, value);
      return this;
    }
    if (this.many !== undefined && this.many.size > 0) {
      this.many.set(key, value);
      return this;
    }
    this.oneKey = key;
    this.oneValue = value;
    this.has1 = true;
    return this;
  }

  delete(key: K): boolean {
    if (this.has1) {
      if (!this.has(key)) return false;
      this.dropOne();
      return true;
    }
    return this.many !== undefined && this.many.size > 0 && this.many.delete(key);
  }

  clear(): void {
    this.dropOne();
    this.many?.clear();
  }

  values(): IterableIterator<V> {
    if (this.has1) return [this.oneValue as V][Symbol.iterator]();
    return this.many === undefined ? (NONE.values() as IterableIterator<V>) : this.many.values();
  }

  private dropOne(): void {
    this.has1 = false;
    this.oneKey = undefined;
    this.oneValue = undefined;
  }
}

/**
 * The first `cap` items of a stream in a given order, kept as they pass, and how many passed: a
 * page lists the first thousand of a million targets without holding the million.
 */
export class Bounded<T> {
  readonly items: T[] = [];
  #seen = 0;

  constructor(
    readonly cap: number,
    private readonly order: (a: T, b: T) => number,
  ) {}

  add(item: T): void {
    this.#seen++;
    const items = this.items;
    if (items.length >= this.cap) {
      if (this.cap === 0 || this.order(item, items.at(-1)!) >= 0) return;
      items.pop();
    }
    // after every item that sorts before it or alongside it: equal items keep their arrival order
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order(items[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
  }

  /** How many passed. */
  get seen(): number {
    return this.#seen;
  }

  /** How many passed but are not kept. */
  get left(): number {
    return this.#seen - this.items.length;
  }
}

/**
 * How many request-body bytes a server holds at once, read or being parsed. Without a bound, a
 * burst of large bodies arriving together is buffered and parsed all at once: memory grows with
 * the burst and the event loop stalls for everyone. With it, a body that does not fit waits
 * unread (its bytes stay in the socket, where TCP slows its sender) until others are done, and
 * is refused with 503 if that takes too long. Part of the budget is kept for small bodies, so
 * an ordinary request never queues behind large ones.
 */

/** A body this small or smaller is "small": it may use the part kept back from large ones. */
export const SMALL_BODY = 64 * 1024;

interface Waiter {
  need: number;
  small: boolean;
  grant: (ok: boolean) => void;
  timer: ReturnType<typeof setTimeout>;
}

export class ByteBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  /**
   * `limit`: bytes held at once in all. `reserve`: the part of it only small bodies may use.
   * A body larger than the budget still goes through when nothing else holds any (the body
   * cap, not the budget, bounds one body).
   */
  constructor(
    readonly limit: number,
    private readonly reserve: number,
  ) {}

  /** Bytes held now. */
  get held(): number {
    return this.used;
  }

  /** Takes `need` bytes at once if they fit; false if not (nothing is taken then). */
  tryTake(need: number, small = need <= SMALL_BODY): boolean {
    if (!this.fits(need, small) || this.waiters.length > 0) return false;
    this.used += need;
    return true;
  }

  /** Takes `need` bytes, waiting up to `waitMs` for others to give theirs back; false if they did not. */
  take(need: number, waitMs: number, small = need <= SMALL_BODY): Promise<boolean> {
    if (this.tryTake(need, small)) return Promise.resolve(true);
    // a small body may overtake large ones waiting: the reserve is there for it
    if (small && this.fits(need, true)) {
      this.used += need;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        need,
        small,
        grant: resolve,
        timer: setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i !== -1) this.waiters.splice(i, 1);
          resolve(false);
          // a large waiter leaving may let smaller ones behind it in
          this.wake();
        }, waitMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Gives back `n` bytes taken earlier. */
  release(n: number): void {
    this.used = Math.max(0, this.used - n);
    this.wake();
  }

  private fits(need: number, small: boolean): boolean {
    if (this.used === 0) return true;
    const room = small ? this.limit : this.limit - this.reserve;
    return this.used + need <= room;
  }

  /** Admits waiters in arrival order while they fit (the first that does not fit blocks those behind it, so large bodies are not starved). */
  private wake(): void {
    while (this.waiters.length > 0) {
      const next = this.waiters[0]!;
      if (!this.fits(next.need, next.small)) return;
      this.waiters.shift();
      clearTimeout(next.timer);
      this.used += next.need;
      next.grant(true);
    }
  }
}

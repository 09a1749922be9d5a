/**
 * Runs work over many items with two limits at once: so many in flight in all, and so many per
 * key (a host), so a census is polite to a platform that hosts hundreds of servers. Hosts take
 * turns: the next free slot goes to the host that waited longest, so one big host neither
 * starves the others nor holds more than its share. A host may also be given a rest between the
 * end of one item's work and the start of the next.
 */
export interface Limits {
  /** Read each time a slot may be filled: it may change while the work runs. */
  concurrency: number;
  perKey: number;
  /** The least time between the end of one item's work for a key and the start of the next. Default 0. */
  gapMs?: number;
  /**
   * Given the function that starts waiting work, for the owner of `concurrency` to call when it
   * grows while nothing ends; returns how to stop calling it.
   */
  onRaise?: (fill: () => void) => () => void;
}

/**
 * Resolves once every item's work has finished, or, after `signal` aborts, once the work
 * already started has finished (nothing new starts). `work` must not reject.
 */
export function forEachLimited<T>(items: readonly T[], keyOf: (item: T) => string, limits: Limits, work: (item: T) => Promise<void>, signal?: AbortSignal): Promise<void> {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    let q = queues.get(key);
    if (!q) queues.set(key, (q = []));
    q.push(item);
  }
  const active = new Map<string, number>();
  // hosts with work waiting and a free slot, in the order they became ready
  const ready: string[] = [...queues.keys()];
  const gapMs = limits.gapMs !== undefined && Number.isFinite(limits.gapMs) && limits.gapMs > 0 ? limits.gapMs : 0;
  // hosts in their rest after a finished item: out of the ready list until it ends
  const resting = new Map<string, ReturnType<typeof setTimeout>>();
  let running = 0;

  return new Promise<void>((resolve) => {
    let unsubscribe: (() => void) | undefined;
    const settle = () => {
      if (running === 0 && ((ready.length === 0 && resting.size === 0) || signal?.aborted)) {
        signal?.removeEventListener("abort", settle);
        unsubscribe?.();
        for (const timer of resting.values()) clearTimeout(timer);
        resting.clear();
        resolve();
      }
    };
    const fill = () => {
      while (running < limits.concurrency && ready.length > 0 && !signal?.aborted) {
        const key = ready.shift()!;
        const q = queues.get(key)!;
        const item = q.shift()!;
        const n = (active.get(key) ?? 0) + 1;
        active.set(key, n);
        running++;
        if (q.length > 0 && n < limits.perKey) ready.push(key);
        void work(item).finally(() => {
          running--;
          const left = active.get(key)! - 1;
          active.set(key, left);
          if (gapMs > 0) rest(key, q);
          // it was out of the ready list only if it had been at its limit
          else if (q.length > 0 && left === limits.perKey - 1) ready.push(key);
          fill();
          settle();
        });
      }
    };
    /** Takes `key` out of turn until its gap is over, then back in if it has work and room. */
    const rest = (key: string, q: T[]) => {
      const at = ready.indexOf(key);
      if (at >= 0) ready.splice(at, 1);
      clearTimeout(resting.get(key));
      if (q.length === 0) {
        resting.delete(key);
        return;
      }
      const timer = setTimeout(() => {
        resting.delete(key);
        if (q.length > 0 && active.get(key)! < limits.perKey) ready.push(key);
        fill();
        settle();
      }, gapMs);
      resting.set(key, timer);
    };
    signal?.addEventListener("abort", settle);
    unsubscribe = limits.onRaise?.(fill);
    fill();
    settle();
  });
}

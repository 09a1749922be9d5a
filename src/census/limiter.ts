/**
 * Runs work over many items with two limits at once: so many in flight in all, and so many per
 * key (a host), so a census is polite to a platform that hosts hundreds of servers. Hosts take
 * turns: the next free slot goes to the host that waited longest, so one big host neither
 * starves the others nor holds more than its share.
 */
export interface Limits {
  concurrency: number;
  perKey: number;
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
  let running = 0;

  return new Promise<void>((resolve) => {
    const settle = () => {
      if (running === 0 && (ready.length === 0 || signal?.aborted)) {
        signal?.removeEventListener("abort", settle);
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
          // it was out of the ready list only if it had been at its limit
          if (q.length > 0 && left === limits.perKey - 1) ready.push(key);
          fill();
          settle();
        });
      }
    };
    signal?.addEventListener("abort", settle);
    fill();
    settle();
  });
}

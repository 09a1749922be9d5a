/**
 * Runs work over many items with two limits at once: so many in flight in all, and so many per
 * key (a host), so a census is polite to a platform that hosts hundreds of servers. Hosts take
 * turns: the next free slot goes to the host that waited longest, so one big host neither
 * starves the others nor holds more than its share. A host may also be given a rest between the
 * end of one item's work and the start of the next.
 */
import type { HostSlot } from "../auth/fetcher.js";
import type { AbortLike } from "../transport/http/fetch.js";

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
 * The per-host slots of a census: how many requests' worth of work each host has now. The items
 * of `forEachLimited` take one each; work in flight for one host may need a request to another
 * (the sign-in walk of one server asks its authorization server, which other servers share), and
 * takes that host's slot for the request alone. A slot freed goes first to such a request
 * waiting for it (it is part of work already under way, and short), then to the next item.
 */
export class HostSlots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  /** Told when a slot of `key` becomes free (the limiter starts its next item then). */
  onFree: (key: string) => void = () => undefined;

  constructor(readonly perKey: number) {}

  /** Whether `key` has a free slot. */
  free(key: string): boolean {
    return (this.active.get(key) ?? 0) < this.perKey;
  }

  /** Takes a slot of `key` if one is free. */
  tryTake(key: string): boolean {
    if (!this.free(key)) return false;
    this.active.set(key, (this.active.get(key) ?? 0) + 1);
    return true;
  }

  /**
   * Counts work for `key` that was admitted elsewhere (a worker's claim, which the store limits
   * across workers), so this process's own requests to that host wait for it.
   */
  hold(key: string): void {
    this.active.set(key, (this.active.get(key) ?? 0) + 1);
  }

  /**
   * Waits for a slot of `key`, for one request; resolves to the function that gives it back.
   * Rejects with the signal's reason when `signal` fires first (a deadline: the wait is part of it).
   */
  take(key: string, signal?: AbortLike): Promise<() => void> {
    const release = once(() => this.release(key));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.tryTake(key)) return Promise.resolve(release);
    return new Promise((resolve, reject) => {
      let queue = this.waiting.get(key);
      if (!queue) this.waiting.set(key, (queue = []));
      const onAbort = () => {
        const q = this.waiting.get(key);
        const at = q ? q.indexOf(grant) : -1;
        if (at >= 0) q!.splice(at, 1);
        if (q?.length === 0) this.waiting.delete(key);
        reject(signal!.reason);
      };
      // handed the slot by `release`: it stays counted, now for this request
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(release);
      };
      queue.push(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Gives back a slot of `key`: to a request waiting for it, else free. */
  release(key: string): void {
    const queue = this.waiting.get(key);
    const next = queue?.shift();
    if (queue?.length === 0) this.waiting.delete(key);
    if (next) return next();
    const left = (this.active.get(key) ?? 1) - 1;
    if (left > 0) this.active.set(key, left);
    else this.active.delete(key);
    this.onFree(key);
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    f();
  };
}

/**
 * Resolves once every item's work has finished, or, after `signal` aborts, once the work
 * already started has finished (nothing new starts). `work` must not reject. `slots` holds the
 * per-key count (made from `limits.perKey` when not given): give it to share the hosts' slots
 * with requests the work makes to other hosts.
 */
export function forEachLimited<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  limits: Limits,
  work: (item: T) => Promise<void>,
  signal?: AbortSignal,
  slots = new HostSlots(limits.perKey),
): Promise<void> {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    let q = queues.get(key);
    if (!q) queues.set(key, (q = []));
    q.push(item);
  }
  // hosts with work waiting and a free slot, in the order they became ready (and `inReady`, the
  // same as a set)
  const ready: string[] = [...queues.keys()];
  const inReady = new Set(ready);
  const gapMs = limits.gapMs !== undefined && Number.isFinite(limits.gapMs) && limits.gapMs > 0 ? limits.gapMs : 0;
  // hosts in their rest after a finished item: out of the ready list until it ends
  const resting = new Map<string, ReturnType<typeof setTimeout>>();
  let running = 0;

  return new Promise<void>((resolve) => {
    // eslint-disable-next-line prefer-const -- settle, declared before it, reads it
    let unsubscribe: (() => void) | undefined;
    const settle = () => {
      if (running === 0 && ((ready.length === 0 && resting.size === 0) || signal?.aborted)) {
        signal?.removeEventListener("abort", settle);
        unsubscribe?.();
        slots.onFree = () => undefined;
        for (const timer of resting.values()) clearTimeout(timer);
        resting.clear();
        resolve();
      }
    };
    /** Puts `key` in turn if it has work waiting, a free slot, and no rest to finish. */
    const reconsider = (key: string) => {
      const q = queues.get(key);
      if (!q || q.length === 0 || inReady.has(key) || resting.has(key) || !slots.free(key)) return;
      ready.push(key);
      inReady.add(key);
    };
    const fill = () => {
      while (running < limits.concurrency && ready.length > 0 && !signal?.aborted) {
        const key = ready.shift()!;
        inReady.delete(key);
        // its slots may have gone to other work's requests meanwhile: back in turn when one is freed
        if (!slots.tryTake(key)) continue;
        const q = queues.get(key)!;
        const item = q.shift()!;
        running++;
        reconsider(key);
        void work(item).finally(() => {
          running--;
          if (gapMs > 0) rest(key, q);
          slots.release(key);
          fill();
          settle();
        });
      }
    };
    slots.onFree = (key) => {
      reconsider(key);
      fill();
    };
    /** Takes `key` out of turn until its gap is over, then back in if it has work and room. */
    const rest = (key: string, q: T[]) => {
      if (inReady.delete(key)) ready.splice(ready.indexOf(key), 1);
      clearTimeout(resting.get(key));
      if (q.length === 0) {
        resting.delete(key);
        return;
      }
      const timer = setTimeout(() => {
        resting.delete(key);
        reconsider(key);
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

/**
 * The per-host limit for the requests of one probe's sign-in walk. Those to the target's own host
 * run one at a time in the slot the probe holds already (a second slot of that host would never
 * come at `--per-host 1`); those to another host (an authorization server many servers share)
 * each take a slot of that host, as a probe of it would.
 */
export function walkHostSlot(own: string, slots: HostSlots): HostSlot {
  const mine = new HostSlots(1);
  return (url, signal) => {
    let host: string;
    try {
      host = new URL(url).hostname.toLowerCase();
    } catch {
      // never sent: the walk records it as not a URL
      return Promise.resolve(() => undefined);
    }
    return host === own ? mine.take(own, signal) : slots.take(host, signal);
  };
}

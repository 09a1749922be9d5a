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

/** What `forEachLimited` runs, and how. */
export interface LimitedWork<T> {
  /** The key (a host) an item's work counts against. */
  keyOf: (item: T) => string;
  limits: Limits;
  /** One item's work; must not reject. */
  work: (item: T) => Promise<void>;
  /** Once aborted, nothing new starts. */
  signal?: AbortSignal | undefined;
  /**
   * The per-key count, made from `limits.perKey` when not given: give it to share the hosts'
   * slots with requests the work makes to other hosts.
   */
  slots?: HostSlots;
}

/**
 * Resolves once every item's work has finished, or, after `signal` aborts, once the work
 * already started has finished (nothing new starts).
 */
export function forEachLimited<T>(items: readonly T[], plan: LimitedWork<T>): Promise<void> {
  return new LimitedRun(items, plan).run();
}

/** One `forEachLimited`: the items queued per key, and the keys taking turns. */
class LimitedRun<T> {
  private readonly queues = new Map<string, T[]>();
  /** Keys with work waiting and a free slot, in the order they became ready. */
  private readonly ready: string[];
  /** The same keys as `ready`, as a set. */
  private readonly inReady: Set<string>;
  /** Keys in their rest after a finished item: out of `ready` until it ends. */
  private readonly resting = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly slots: HostSlots;
  private readonly gapMs: number;
  private readonly signal: AbortSignal | undefined;
  private running = 0;
  private resolve: () => void = () => undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    items: readonly T[],
    private readonly plan: LimitedWork<T>,
  ) {
    for (const item of items) {
      const key = plan.keyOf(item);
      let q = this.queues.get(key);
      if (!q) this.queues.set(key, (q = []));
      q.push(item);
    }
    this.ready = [...this.queues.keys()];
    this.inReady = new Set(this.ready);
    this.slots = plan.slots ?? new HostSlots(plan.limits.perKey);
    const gapMs = plan.limits.gapMs;
    this.gapMs = gapMs !== undefined && Number.isFinite(gapMs) && gapMs > 0 ? gapMs : 0;
    this.signal = plan.signal;
  }

  run(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.resolve = resolve;
      this.slots.onFree = (key) => {
        this.reconsider(key);
        this.fill();
      };
      this.signal?.addEventListener("abort", this.settle);
      this.unsubscribe = this.plan.limits.onRaise?.(this.fill);
      this.fill();
      this.settle();
    });
  }

  /** Resolves once nothing runs and nothing is left to start (or nothing may start any more). */
  private readonly settle = (): void => {
    if (this.running > 0) return;
    if (!((this.ready.length === 0 && this.resting.size === 0) || this.signal?.aborted)) return;
    this.signal?.removeEventListener("abort", this.settle);
    this.unsubscribe?.();
    this.slots.onFree = () => undefined;
    for (const timer of this.resting.values()) clearTimeout(timer);
    this.resting.clear();
    this.resolve();
  };

  /** Starts work while there is room in all and a key in turn with a free slot. */
  private readonly fill = (): void => {
    while (this.running < this.plan.limits.concurrency && this.ready.length > 0 && !this.signal?.aborted) {
      const key = this.ready.shift()!;
      this.inReady.delete(key);
      // its slots may have gone to other work's requests meanwhile: back in turn when one is freed
      if (this.slots.tryTake(key)) this.start(key);
    }
  };

  /** Starts the next item of `key`, whose slot is taken. */
  private start(key: string): void {
    const q = this.queues.get(key)!;
    const item = q.shift()!;
    this.running++;
    this.reconsider(key);
    void this.plan.work(item).finally(() => this.finished(key, q));
  }

  private finished(key: string, q: T[]): void {
    this.running--;
    if (this.gapMs > 0) this.rest(key, q);
    this.slots.release(key);
    this.fill();
    this.settle();
  }

  /** Puts `key` in turn if it has work waiting, a free slot, and no rest to finish. */
  private reconsider(key: string): void {
    const q = this.queues.get(key);
    if (!q || q.length === 0 || this.inReady.has(key) || this.resting.has(key) || !this.slots.free(key)) return;
    this.ready.push(key);
    this.inReady.add(key);
  }

  /** Takes `key` out of turn until its gap is over, then back in if it has work and room. */
  private rest(key: string, q: T[]): void {
    if (this.inReady.delete(key)) this.ready.splice(this.ready.indexOf(key), 1);
    clearTimeout(this.resting.get(key));
    if (q.length === 0) {
      this.resting.delete(key);
      return;
    }
    const timer = setTimeout(() => {
      this.resting.delete(key);
      this.reconsider(key);
      this.fill();
      this.settle();
    }, this.gapMs);
    this.resting.set(key, timer);
  }
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

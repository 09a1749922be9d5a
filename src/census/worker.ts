/**
 * A census worker on a shared run: claims a few targets at a time from the store (which keeps
 * the per-host limit and gap across every worker), probes them as a one-process census would,
 * under the same admission (fewer probes while its own event loop is behind, and a timeout it
 * caused probed again), and stores the verdicts in small batches, renewing its lease all the while. Any number of
 * workers on any number of machines may run this on one run; when the run has no target left,
 * each of them returns, and the run is marked finished.
 */
import os from "node:os";
import {
  admitted,
  attemptAt,
  censusAdmission,
  DEFAULT_CONCURRENCY,
  DEFAULT_PER_HOST,
  type CensusOptions,
} from "./census.js";
import type { Admission } from "./admission.js";
import { hostOf } from "./host-of.js";
import { HostSlots } from "./limiter.js";
import type { AttemptRecord, SharedRun, Store, TargetRecord } from "./store.js";

const DEFAULT_LEASE_MS = 30_000;
/** Targets claimed at once: enough to keep a round trip per claim cheap, few enough to share out. */
const CLAIM_BATCH = 32;
/** How often an idle worker looks for work that others freed (a finished host slot, an expired lease). */
const POLL_MS = 100;

export interface WorkerOptions extends CensusOptions {
  /** How long this worker's claims outlive its last renewal. Default 30 s. */
  leaseMs?: number;
  /** Called now and then with the whole run's state (every worker's attempts). */
  onProgress?: (p: { done: number; total: number; classes: Map<string, number> }) => void;
  /** How often `onProgress` is called. Default 1 s. */
  progressEveryMs?: number;
  /** How often an idle worker asks for work again. Default 100 ms. */
  pollMs?: number;
}

export interface WorkerOutcome {
  runId: number;
  /** Attempts this worker stored. */
  recorded: number;
  /** Targets of the run without an attempt when this worker left. */
  pending: number;
  /** True when `signal` stopped it while targets were left. */
  stopped: boolean;
}

export async function runWorker(store: Store, runId: number, options: WorkerOptions = {}): Promise<WorkerOutcome> {
  if (!store.share)
    throw new Error(`${store.where} cannot be shared by several census processes; use a PostgreSQL database`);
  const leaseMs = Math.max(1000, options.leaseMs ?? DEFAULT_LEASE_MS);
  const shared = await store.share(runId, {
    leaseMs,
    gapMs: options.gapMs ?? 0,
    label: `${os.hostname()} pid ${process.pid}`,
  });
  return new CensusWorker(store, runId, shared, leaseMs, options).run();
}

/** Wakes the main loop early from its nap: a probe ended, a batch was stored, or the caller said stop. */
class Alarm {
  private ring: () => void = () => undefined;

  /** Resolves after `ms`, or sooner when `wake` is called. */
  nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ring = () => undefined;
        resolve();
      }, ms);
      this.ring = () => {
        clearTimeout(timer);
        this.ring = () => undefined;
        resolve();
      };
    });
  }

  readonly wake = (): void => this.ring();
}

/**
 * Finished attempts wait here for the store; while one batch is written the next gathers, so a
 * fast fleet costs one transaction per batch, not one per attempt.
 */
class BatchWriter {
  private readonly finished: AttemptRecord[] = [];
  private writing: Promise<void> | undefined;
  /** Attempts stored. */
  recorded = 0;

  constructor(
    private readonly shared: SharedRun,
    private readonly worker: { fail(e: unknown): void; readonly failed: boolean; readonly alarm: Alarm },
    private readonly onAttempt: ((a: AttemptRecord) => void) | undefined,
  ) {}

  add(a: AttemptRecord): void {
    this.finished.push(a);
    this.flush();
  }

  /** A batch is being written. */
  get busy(): boolean {
    return this.writing !== undefined;
  }

  /** Nothing waits to be written, nor is being written. */
  get idle(): boolean {
    return this.writing === undefined && this.finished.length === 0;
  }

  private flush(): void {
    this.writing ??= this.write()
      .catch((e: unknown) => this.worker.fail(e))
      .finally(() => {
        this.writing = undefined;
        if (this.finished.length > 0 && !this.worker.failed) this.flush();
        this.worker.alarm.wake();
      });
  }

  private async write(): Promise<void> {
    while (this.finished.length > 0) {
      const batch = this.finished.splice(0);
      for (const a of await this.shared.finish(batch)) {
        this.recorded++;
        this.onAttempt?.(a);
      }
    }
  }
}

/** One worker on a shared run, in named steps: claim, probe, store, and when nothing is left, conclude. */
class CensusWorker {
  readonly alarm = new Alarm();
  private readonly admission: Admission;
  /** The census's probe under this worker's admission. */
  private readonly guarded: CensusOptions;
  private readonly perHost: number;
  /**
   * The store keeps the per-host limit of the probes across workers; the requests of their
   * sign-in walks to other hosts wait for the probes of those hosts this worker runs.
   */
  private readonly slots: HostSlots;
  private readonly writer: BatchWriter;
  private inFlight = 0;
  private failure: unknown;
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private stopWaking: () => void = () => undefined;

  constructor(
    private readonly store: Store,
    private readonly runId: number,
    private readonly shared: SharedRun,
    private readonly leaseMs: number,
    private readonly options: WorkerOptions,
  ) {
    // the same admission as a one-process census: claims only what this process can serve in time
    this.admission = censusAdmission(positive(options.concurrency, DEFAULT_CONCURRENCY), options);
    this.guarded = { ...options, probe: admitted(this.admission, options) };
    this.perHost = positive(options.perHost, DEFAULT_PER_HOST);
    this.slots = new HostSlots(this.perHost);
    this.writer = new BatchWriter(shared, this, options.onAttempt);
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  fail(e: unknown): void {
    this.failure ??= e;
  }

  private get stopped(): boolean {
    return this.failed || this.options.signal?.aborted === true;
  }

  async run(): Promise<WorkerOutcome> {
    this.startTimers();
    this.admission.start();
    try {
      await this.work();
      // stopping or done: what is in flight finishes and is stored
      while (this.inFlight > 0 || this.writer.busy) await this.alarm.nap(this.pollMs);
      if (this.failed) throw this.failure;
      return await this.conclude();
    } finally {
      this.stopTimers();
      await leave(this.shared);
    }
  }

  private get pollMs(): number {
    return this.options.pollMs ?? POLL_MS;
  }

  /** The lease's renewal, the progress reports, and what wakes the main loop. */
  private startTimers(): void {
    const { options, shared } = this;
    // renewed at a third of the lease, so two renewals may fail before a claim is lost
    this.timers.push(setInterval(() => void shared.renew().catch(() => undefined), Math.floor(this.leaseMs / 3)));
    if (options.onProgress)
      this.timers.push(
        setInterval(
          () => void shared.progress().then(options.onProgress, () => undefined),
          options.progressEveryMs ?? 1000,
        ),
      );
    for (const t of this.timers) t.unref();
    options.signal?.addEventListener("abort", this.alarm.wake);
    this.stopWaking = this.admission.onRaise(this.alarm.wake);
  }

  private stopTimers(): void {
    this.admission.stop();
    this.stopWaking();
    for (const t of this.timers) clearInterval(t);
    this.options.signal?.removeEventListener("abort", this.alarm.wake);
  }

  /** Claims and probes until the run has no target left or the worker is told to stop. */
  private async work(): Promise<void> {
    this.options.onProgress?.(await this.shared.progress());
    while (!this.stopped) {
      if ((await this.claim()) > 0 && this.inFlight < this.admission.limit) continue;
      if (this.inFlight === 0 && this.writer.idle) {
        const state = await this.shared.progress();
        if (state.done >= state.total) return;
      }
      await this.alarm.nap(this.pollMs);
    }
  }

  /** Claims what there is room for and starts it; returns how many were claimed. */
  private async claim(): Promise<number> {
    const room = this.admission.limit - this.inFlight;
    if (room <= 0) return 0;
    const claimed = await this.shared.claim(Math.min(room, CLAIM_BATCH), this.perHost);
    for (const t of claimed) this.start(t);
    return claimed.length;
  }

  private start(t: TargetRecord): void {
    this.inFlight++;
    const host = hostOf(t);
    this.slots.hold(host);
    attemptAt(this.runId, t, this.guarded, this.slots)
      .then(
        (a) => this.writer.add(a),
        (e: unknown) => this.fail(e),
      )
      .finally(() => {
        this.slots.release(host);
        this.inFlight--;
        this.alarm.wake();
      });
  }

  /** The run's state once this worker is done; the last worker out marks the run finished. */
  private async conclude(): Promise<WorkerOutcome> {
    const state = await this.shared.progress();
    this.options.onProgress?.(state);
    const pending = state.total - state.done;
    if (pending === 0) await this.store.finishRun(this.runId);
    return { runId: this.runId, recorded: this.writer.recorded, pending, stopped: pending > 0 };
  }
}

async function leave(shared: SharedRun): Promise<void> {
  try {
    await shared.leave();
  } catch {
    // the lease runs out by itself
  }
}

function positive(n: number | undefined, fallback: number): number {
  return n !== undefined && Number.isFinite(n) && n >= 1 ? Math.floor(n) : fallback;
}

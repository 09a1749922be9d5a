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
import { hostOf } from "./host-of.js";
import { HostSlots } from "./limiter.js";
import type { AttemptRecord, SharedRun, Store, TargetRecord } from "./store.js";

export const DEFAULT_LEASE_MS = 30_000;
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
  const concurrency = positive(options.concurrency, DEFAULT_CONCURRENCY);
  const perHost = positive(options.perHost, DEFAULT_PER_HOST);
  const pollMs = options.pollMs ?? POLL_MS;
  // the same admission as a one-process census: claims only what this process can serve in time
  const admission = censusAdmission(concurrency, options);
  const guarded: CensusOptions = { ...options, probe: admitted(admission, options) };

  let failure: unknown;
  const fail = (e: unknown) => {
    failure ??= e;
  };
  const stopped = () => failure !== undefined || options.signal?.aborted === true;

  // renewed at a third of the lease, so two renewals may fail before a claim is lost
  const renewal = setInterval(() => void shared.renew().catch(() => undefined), Math.floor(leaseMs / 3));
  renewal.unref();
  const reporter = options.onProgress
    ? setInterval(
        () => void shared.progress().then(options.onProgress, () => undefined),
        options.progressEveryMs ?? 1000,
      )
    : undefined;
  reporter?.unref();

  // wakes the main loop early: a probe ended, a batch was stored, or the caller said stop
  let wake: () => void = () => undefined;
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = () => undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = () => undefined;
        resolve();
      };
    });
  const onAbort = () => wake();
  options.signal?.addEventListener("abort", onAbort);
  const stopWaking = admission.onRaise(() => wake());

  // finished attempts wait here for the store; while one batch is written the next gathers, so
  // a fast fleet costs one transaction per batch, not one per attempt
  const finished: AttemptRecord[] = [];
  let writing: Promise<void> | undefined;
  let recorded = 0;
  const write = async () => {
    while (finished.length > 0) {
      const batch = finished.splice(0);
      for (const a of await shared.finish(batch)) {
        recorded++;
        options.onAttempt?.(a);
      }
    }
  };
  const flush = () => {
    writing ??= write()
      .catch(fail)
      .finally(() => {
        writing = undefined;
        if (finished.length > 0 && failure === undefined) flush();
        wake();
      });
  };

  // the store keeps the per-host limit of the probes across workers; the requests of their
  // sign-in walks to other hosts wait for the probes of those hosts this worker runs
  const slots = new HostSlots(perHost);
  let inFlight = 0;
  const start = (t: TargetRecord) => {
    inFlight++;
    const host = hostOf(t);
    slots.hold(host);
    attemptAt(runId, t, guarded, slots)
      .then((a) => {
        finished.push(a);
        flush();
      }, fail)
      .finally(() => {
        slots.release(host);
        inFlight--;
        wake();
      });
  };

  admission.start();
  try {
    let state = await shared.progress();
    options.onProgress?.(state);
    while (!stopped()) {
      const room = admission.limit - inFlight;
      if (room > 0) {
        const claimed = await shared.claim(Math.min(room, CLAIM_BATCH), perHost);
        for (const t of claimed) start(t);
        if (claimed.length > 0 && inFlight < admission.limit) continue;
      }
      if (inFlight === 0 && writing === undefined && finished.length === 0) {
        state = await shared.progress();
        if (state.done >= state.total) break;
      }
      await nap(pollMs);
    }
    // stopping or done: what is in flight finishes and is stored
    while (inFlight > 0 || writing !== undefined) await nap(pollMs);
    if (failure !== undefined) throw failure;
    state = await shared.progress();
    options.onProgress?.(state);
    const pending = state.total - state.done;
    if (pending === 0) await store.finishRun(runId);
    return { runId, recorded, pending, stopped: pending > 0 };
  } finally {
    admission.stop();
    stopWaking();
    clearInterval(renewal);
    if (reporter) clearInterval(reporter);
    options.signal?.removeEventListener("abort", onAbort);
    await leave(shared);
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

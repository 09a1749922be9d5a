/**
 * A census: every target of a run probed once, so many at a time in all and per host, each
 * verdict stored the moment it is known (committed before it counts as done; verdicts known within a
 * few milliseconds of each other share a commit), so a run killed at any point keeps every finished
 * attempt and `--resume` does only the rest.
 */
import { probeHttp, probeStdio, type ProbeOptions } from "../probe/probe.js";
import type { ProbeResult } from "../probe/verdict.js";
import type { LookupFunction } from "node:net";
import { resolverFor, untrustedNetwork, vetUrl } from "./address.js";
import type { Resolver } from "./address.js";
import { Admission, type AdmissionState } from "./admission.js";
import { attemptOf, invalidAttempt, unresolvedAttempt } from "./attempt.js";
import { hostOf } from "./host-of.js";
import { forEachLimited, HostSlots, walkHostSlot } from "./limiter.js";
import type { AttemptRecord, Store, TargetRecord } from "./store.js";

export const DEFAULT_CONCURRENCY = 32;
export const DEFAULT_PER_HOST = 1;
export const DEFAULT_TIMEOUT = 10_000;
/** Finished attempts that may wait for their commit while new probes start. */
const MAX_UNCOMMITTED = 256;

export interface CensusOptions {
  /** Probes in flight at once. Default 32. */
  concurrency?: number;
  /** Probes in flight at once to one host name. Default 1. */
  perHost?: number;
  /** The least time between the end of one probe of a host and the start of the next, ms. Default 0. */
  gapMs?: number;
  /** Each probe's overall deadline, ms. Default 10,000. */
  timeout?: number;
  /** Sent with every request; never stored, and scrubbed from what is. */
  headers?: Record<string, string>;
  /** Call registry targets whose host is loopback, private, link-local or metadata. */
  allowPrivate?: boolean;
  /** Resolves registry hosts before they are called. Default: `lookup` when given, else the system resolver. */
  resolve?: Resolver;
  /**
   * Resolves the host names of HTTP targets instead of the system resolver (tests give many host
   * names the one loopback address). The private-address rule sees what it resolves to.
   */
  lookup?: LookupFunction;
  /** Probes one target (tests and benchmarks replace it). Default: HTTP, or stdio for stdio targets. */
  probe?: (target: TargetRecord, options: ProbeOptions) => Promise<ProbeResult>;
  /** Stops starting probes; the census resolves when those in flight have finished and been stored. */
  signal?: AbortSignal;
  /** Called after each attempt is stored. */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Told when the census admits fewer probes than `concurrency` (its own event loop is behind), and why. */
  onAdmission?: (state: AdmissionState) => void;
}

export interface CensusOutcome {
  runId: number;
  /** Attempts stored by this call. */
  recorded: number;
  /** Targets still without an attempt (non-zero only when stopped). */
  pending: number;
  /** True when `signal` stopped it before every target was done; the run stays unfinished. */
  stopped: boolean;
}

/** Probes `targets` (those of `runId` without an attempt) and finishes the run when none is left. */
export async function runCensus(
  store: Store,
  runId: number,
  targets: readonly TargetRecord[],
  options: CensusOptions = {},
): Promise<CensusOutcome> {
  const concurrency = positive(options.concurrency, DEFAULT_CONCURRENCY);
  // probes are admitted while this process keeps up, and a timeout it caused is probed again
  const admission = censusAdmission(concurrency, options);
  const guarded: CensusOptions = { ...options, probe: admitted(admission, options) };
  let recorded = 0;
  const record = async (a: AttemptRecord) => {
    await store.recordAttempt(a);
    recorded++;
    options.onAttempt?.(a);
  };

  // a store write that fails is fatal: no new probe starts, and the error is thrown once the
  // probes in flight are over
  let failure: unknown;
  const stopper = new AbortController();
  const fail = (e: unknown) => {
    failure ??= e;
    stopper.abort();
  };
  // A finished probe hands its attempt to the store and frees its place at once: a store may
  // hold an attempt back a few milliseconds to commit it with others (SQLite does), and a
  // place kept meanwhile would idle. Up to MAX_UNCOMMITTED wait; past that, a probe's place
  // stays taken until its attempt is stored, so a store slower than the probes bounds them.
  const uncommitted = new Set<Promise<void>>();
  const keep = async (a: AttemptRecord): Promise<void> => {
    const stored = record(a).catch(fail);
    uncommitted.add(stored);
    const done = stored.then(() => void uncommitted.delete(stored));
    if (uncommitted.size > MAX_UNCOMMITTED) await done;
  };

  const callable: TargetRecord[] = [];
  for (const t of targets) {
    if (options.signal?.aborted || failure !== undefined) break;
    if (t.invalid) await keep(invalidAttempt(runId, new Date(), t, t.invalid));
    else callable.push(t);
  }

  admission.start();
  const perHost = positive(options.perHost, DEFAULT_PER_HOST);
  const slots = new HostSlots(perHost);
  await forEachLimited(callable, {
    keyOf: hostOf,
    limits: {
      get concurrency() {
        return admission.limit;
      },
      perKey: perHost,
      gapMs: gapOf(options),
      onRaise: (fill) => admission.onRaise(fill),
    },
    work: async (t) => {
      try {
        await keep(await attemptAt(runId, t, guarded, slots));
      } catch (e) {
        fail(e);
      }
    },
    signal: AbortSignal.any([stopper.signal, ...(options.signal ? [options.signal] : [])]),
    slots,
  });
  admission.stop();
  await Promise.all(uncommitted);
  if (failure !== undefined) throw failure;

  const pending = (await store.pendingTargets(runId)).length;
  const stopped = pending > 0;
  if (!stopped) await store.finishRun(runId);
  return { runId, recorded, pending, stopped };
}

/** The admission of one census process, whichever way it runs (alone, or as a worker on a shared run). */
export function censusAdmission(concurrency: number, options: CensusOptions): Admission {
  return new Admission({
    ceiling: concurrency,
    timeoutMs: options.timeout ?? DEFAULT_TIMEOUT,
    ...(options.onAdmission ? { onChange: options.onAdmission } : {}),
  });
}

/** The census's probe under `admission`: a timeout this process caused is probed again. */
export function admitted(admission: Admission, options: CensusOptions): NonNullable<CensusOptions["probe"]> {
  const probeOnce = options.probe ?? defaultProbe;
  const gapMs = gapOf(options);
  // the added property comes first: a literal that starts with a spread and then takes more
  // properties goes through a slow path in V8 (microseconds per probe)
  const guarded: NonNullable<CensusOptions["probe"]> = (t, o) =>
    admission.probe(
      (progress) => probeOnce(t, "onProgress" in o ? { ...o, onProgress: progress } : { onProgress: progress, ...o }),
      ownFault,
      gapMs,
    );
  if (redacting.has(probeOnce)) redacting.add(guarded);
  return guarded;
}

/**
 * The probes whose verdicts come back with the census's headers already scrubbed from every
 * string (mcp-wire's own, and the census's guard around one): their attempts skip a second pass.
 * A probe given by a caller is scrubbed again, whatever it returns.
 */
const redacting = new WeakSet<object>([defaultProbe]);

function gapOf(options: CensusOptions): number {
  return options.gapMs !== undefined && Number.isFinite(options.gapMs) && options.gapMs > 0 ? options.gapMs : 0;
}

/**
 * The verdict this process can cause by falling behind: a deadline that passed while answers sat
 * unread. (A reset from reusing a keep-alive connection whose close it had not yet read is
 * repeated by the HTTP client itself.)
 */
function ownFault(r: ProbeResult): boolean {
  return r.class === "timeout";
}

/**
 * The attempt of one target, as the census stores it: not called when it cannot be (invalid, a
 * registry URL resolving to a private address, or one that does not resolve), else probed.
 * Shared by every way of running a census (one process, or workers sharing a run). `slots`: the
 * census's per-host slots, which the probe's sign-in walk then obeys too.
 */
export async function attemptAt(
  runId: number,
  t: TargetRecord,
  options: CensusOptions = {},
  slots?: HostSlots,
): Promise<AttemptRecord> {
  const started = new Date();
  if (t.invalid) return invalidAttempt(runId, started, t, t.invalid);
  const guarded = t.untrusted === true && !options.allowPrivate && t.kind !== "stdio";
  const network = guarded ? untrustedNetwork(options) : undefined;
  if (network) {
    const verdict = await vetUrl(t.target, resolverFor(options));
    if (verdict.kind === "private") return invalidAttempt(runId, started, t, "private_address", verdict.address);
    if (verdict.kind === "unresolved") return unresolvedAttempt(runId, started, t, verdict.reason);
  }
  const probeOptions: ProbeOptions = {
    timeout: options.timeout ?? DEFAULT_TIMEOUT,
    // an attempt keeps no trace, and keeps the server's surface to tell what changed between runs
    trace: false,
    surface: true,
    ...(options.headers && Object.keys(options.headers).length > 0 ? { headers: options.headers } : {}),
    // every URL a registry target's sign-in chain leads to obeys the same rule as the target,
    // and so does every address its requests connect to
    ...(network
      ? { urlGuard: network.guard, lookup: network.lookup }
      : options.lookup
        ? { lookup: options.lookup }
        : {}),
    ...(t.kind === "sse" ? { transport: "http+sse" as const } : {}),
    ...(slots && t.kind !== "stdio" ? { hostSlot: walkHostSlot(hostOf(t), slots) } : {}),
  };
  const probe = options.probe ?? defaultProbe;
  const result = await probe(t, probeOptions);
  // the target's own host answered a private address when the probe connected: it was never called
  const refused = network?.refused;
  if (refused && result.class === "unreachable" && refused.hostname.toLowerCase() === hostOf(t)) {
    return invalidAttempt(runId, started, t, "private_address", refused.address);
  }
  // the probe names the URL it was given; the store knows the target by its listed form
  return attemptOf(runId, started, result, options.headers, redacting.has(probe), t.target);
}

/** Scrubs its verdict of `options.headers` itself, as probeHttp and probeStdio do. */
function defaultProbe(t: TargetRecord, options: ProbeOptions): Promise<ProbeResult> {
  if (t.kind === "stdio") {
    // a stdio target is stored as its command line; its words are the command and its arguments
    const [command, ...args] = t.target.split(/\s+/).filter((w) => w !== "");
    return probeStdio(command ?? "", args, options);
  }
  return probeHttp(t.target, options);
}

function positive(n: number | undefined, fallback: number): number {
  return n !== undefined && Number.isFinite(n) && n >= 1 ? Math.floor(n) : fallback;
}

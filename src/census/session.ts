/**
 * One census session, whichever way it starts: a new run over a targets list, or an unfinished
 * run picked up again (`--resume`: the newest; `--join`: a shared run, as one more worker). A
 * picked-up run keeps the settings it was started with unless new ones are given, and gets back
 * the secrets its targets carried (never stored) from the targets file it came from. Then the
 * session is run: through the store's shared queue when it has one, else by this process alone.
 */
import type { AdmissionState } from "./admission.js";
import { DEFAULT_CONCURRENCY, DEFAULT_PER_HOST, DEFAULT_TIMEOUT, runCensus, type CensusOptions } from "./census.js";
import { lostSecret, type SecretSafeStore } from "./secret-safe-store.js";
import type { AttemptRecord, RunRecord, TargetRecord } from "./store.js";
import type { TargetList } from "./targets.js";

/** The settings a run is started with and resumed with; never a header value. */
export interface RunSettings {
  concurrency: number;
  perHost: number;
  /** Least time between the end of one probe of a host and the start of the next, ms. */
  perHostGap: number;
  timeout: number;
  allowPrivate: boolean;
  /** How many --header options the run was started with, so a resume can ask for them again. */
  headers: number;
}

/**
 * The session cannot start as asked (nothing to resume, a run that is not there, secrets or
 * headers that must be given again): said in one line, a usage error.
 */
export class SessionRefused extends Error {
  override name = "SessionRefused";
  readonly code = "ERR_MCP_WIRE_SESSION_REFUSED";
}

export interface SessionOptions {
  /** Settings given for this session; a picked-up run keeps its own for the others. */
  given: Partial<RunSettings>;
  /** Header values given for this session (never stored). */
  headers: Record<string, string>;
  /** The targets, read from `source`: required for a new run; for a picked-up one, where secrets come from. */
  list?: TargetList;
  /** Where `list` was read from (a path), recorded with a new run. */
  source?: string;
  /** Pick up an unfinished run rather than start one: the newest, or `runId`. */
  pickUp?: { verb: "resume" | "join"; runId?: number };
  /**
   * Reads the targets file a picked-up run was started from, when its targets' secrets are
   * needed and `list` was not given: the list, or why it cannot be read.
   */
  reread?: (file: string) => Promise<TargetList | string>;
}

export interface Session {
  run: RunRecord;
  /** The run's targets without an attempt yet: what this session has to do. */
  targets: TargetRecord[];
  settings: RunSettings;
  /** True when an unfinished run was picked up rather than started. */
  pickedUp: boolean;
}

/** Starts a run, or picks up an unfinished one, in `store`. */
export async function openSession(store: SecretSafeStore, options: SessionOptions): Promise<Session> {
  const headers = Object.keys(options.headers).length;
  if (!options.pickUp) {
    if (!options.list || options.source === undefined)
      throw new Error("a new run needs its targets and where they came from");
    const settings = settingsOf(options.given, {}, headers);
    const targets = options.list.targets;
    const id = await store.startRun(options.source, targets, { ...settings });
    const run = (await store.runs()).find((r) => r.id === id)!;
    return { run, targets, settings, pickedUp: false };
  }

  const { verb, runId } = options.pickUp;
  let run: RunRecord | undefined;
  if (runId !== undefined) {
    const runs = await store.runs();
    run = runs.find((r) => r.id === runId);
    if (!run)
      throw new SessionRefused(
        `no run ${runId} in ${store.where} (runs: ${runs.length === 0 ? "none" : runs.map((r) => r.id).join(", ")})`,
      );
    if (run.finishedAt !== null) throw new SessionRefused(`nothing to join: run ${runId} is finished`);
  } else {
    run = await store.unfinishedRun();
    if (!run) throw new SessionRefused(`nothing to ${verb}: every run in ${store.where} is finished`);
  }
  const before = run.settings as Partial<RunSettings>;
  const settings = settingsOf(options.given, before, headers);
  if ((before.headers ?? 0) > 0 && settings.headers === 0) {
    throw new SessionRefused(
      `run ${run.id} was started with ${before.headers} --header option${before.headers === 1 ? "" : "s"}; give them again to ${verb} it (they are never stored)`,
    );
  }
  // secrets are never stored: the targets file they came from gives them back
  if (options.list) store.learn(options.list.targets);
  let targets = await store.pendingTargets(run.id);
  if (!options.list && options.reread && targets.some((t) => lostSecret(t.target))) {
    const again = await options.reread(run.source);
    if (typeof again !== "string") store.learn(again.targets);
    targets = await store.pendingTargets(run.id);
  }
  const lost = targets.filter((t) => lostSecret(t.target)).length;
  if (lost > 0) {
    throw new SessionRefused(
      `run ${run.id} has ${lost} target${lost === 1 ? "" : "s"} whose secrets are never stored, and ${options.source ?? run.source} does not list ${lost === 1 ? "it" : "them"}: ` +
        `give the targets file the run started from (mcp-wire census FILE --${verb})`,
    );
  }
  return { run, targets, settings, pickedUp: true };
}

/** What was given now, else what the run was started with, else the defaults. */
function settingsOf(given: Partial<RunSettings>, before: Partial<RunSettings>, headers: number): RunSettings {
  return {
    concurrency: given.concurrency ?? before.concurrency ?? DEFAULT_CONCURRENCY,
    perHost: given.perHost ?? before.perHost ?? DEFAULT_PER_HOST,
    perHostGap: given.perHostGap ?? before.perHostGap ?? 0,
    timeout: given.timeout ?? before.timeout ?? DEFAULT_TIMEOUT,
    allowPrivate: given.allowPrivate ?? before.allowPrivate ?? false,
    headers,
  };
}

export interface RunSessionOptions {
  /** The header values (the settings count them; the values are never stored). */
  headers: Record<string, string>;
  /** Stops starting probes; those in flight finish and are stored. */
  signal: AbortSignal;
  /** A shared run's lease (see WorkerOptions). */
  leaseMs?: number;
  onAttempt?: (attempt: AttemptRecord) => void;
  onAdmission?: (state: AdmissionState) => void;
  /** The whole run's progress, every worker's attempts (a shared run only). */
  onProgress?: (done: number, classes: Map<string, number>) => void;
}

export interface SessionOutcome {
  /** Attempts this process stored. */
  recorded: number;
  /** Targets of the run still without an attempt. */
  pending: number;
  /** True when the signal stopped it with targets left. */
  stopped: boolean;
}

/**
 * Probes the session's targets under its settings. A store that several processes can share
 * is worked through its queue, whoever started the run.
 */
export async function runSession(
  store: SecretSafeStore,
  session: Session,
  options: RunSessionOptions,
): Promise<SessionOutcome> {
  const { settings, run } = session;
  const census: CensusOptions = {
    concurrency: settings.concurrency,
    perHost: settings.perHost,
    gapMs: settings.perHostGap,
    timeout: settings.timeout,
    allowPrivate: settings.allowPrivate,
    headers: options.headers,
    signal: options.signal,
    ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
    ...(options.onAdmission ? { onAdmission: options.onAdmission } : {}),
  };
  if (!store.share) return runCensus(store, run.id, session.targets, census);
  const { runWorker } = await import("./worker.js");
  const onProgress = options.onProgress;
  return runWorker(store, run.id, {
    ...census,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(onProgress ? { onProgress: (p) => onProgress(p.done, p.classes) } : {}),
  });
}

/**
 * Where census attempts live. The census writes through this interface and the report reads
 * through it, and neither knows which engine is behind it: SQLite (one file, the default) or
 * PostgreSQL (shared by census workers on many machines). Every method returns a promise, since
 * a network database answers later; SQLite answers at once and pays one microtask a call.
 */
import type { Defect } from "../codec/defects.js";
import type { Revision } from "../rules/revisions.js";

/** One census run over a list of targets. */
export interface RunRecord {
  id: number;
  startedAt: string; // ISO 8601
  finishedAt: string | null;
  /** Where the targets came from (a file path, "fleet"), for a person. */
  source: string;
  targets: number;
  /** Options that shaped the run (timeout, concurrency, per-host), never headers. */
  settings: Record<string, unknown>;
}

export type TargetKind = "http" | "sse" | "stdio";

/** A target as the census will probe it. */
export interface TargetRecord {
  /** The URL (or stdio command line) exactly as probed: the identity of the target. */
  target: string;
  kind: TargetKind;
  /** Registry name, when the target came from a registry export. */
  name: string | null;
  /**
   * Taken from an untrusted list (a registry export): its host must resolve to a public address
   * before it is called, so a census cannot be turned against the network it runs in.
   */
  untrusted?: boolean;
  /** Why it cannot be probed at all; it is then stored as class `invalid_target` with this detail. */
  invalid?: "bad_url" | "template" | "needs_config";
}

/** Upper bounds of `Aggregates.latency` buckets, in ms; a last, open bucket takes the rest. */
export const LATENCY_BOUNDS_MS = [50, 100, 250, 500, 1000, 2500, 5000, 10000] as const;

/** One finished probe of one target in one run. Never holds a secret. */
export interface AttemptRecord {
  runId: number;
  target: string;
  at: string; // ISO 8601, when the probe started
  class: string; // a probe class, or "invalid_target"
  detail: string;
  era: "modern" | "legacy" | null;
  revision: Revision | null;
  transport: string | null;
  httpStatus: number | null;
  contentType: string | null;
  rpcCode: number | null;
  rpcMessage: string | null;
  rpcRange: string | null;
  tools: number | null;
  serverName: string | null;
  serverVersion: string | null;
  defects: Defect[];
  elapsedMs: number;
  repro: string | null;
  advice: string | null;
  /** The probe's sign-in diagnosis (the `auth` object of docs/probe.md), when it walked one. */
  auth: Record<string, unknown> | null;
  /** What the server offered, when the tools were listed (absent in attempts stored before surfaces were). */
  surface?: SurfaceRecord | null;
}

/** An attempt as `Store.history` gives it. */
export type HistoryRecord = Pick<
  AttemptRecord,
  "runId" | "target" | "at" | "class" | "detail" | "revision" | "elapsedMs" | "serverName" | "serverVersion"
> & {
  surface: SurfaceRecord | null;
};

/**
 * A tool as an attempt holds it: its name and the digest of its definition in canonical JSON (keys
 * sorted). The definition itself is stored once per digest, however many attempts list it; it is
 * given when an attempt is recorded and read back with `Store.toolDefinitions`.
 */
export interface StoredTool {
  name: string;
  digest: string;
  definition?: string;
}

/** What one attempt saw a server offer. A list is null when the server does not declare it. */
export interface SurfaceRecord {
  tools: StoredTool[];
  resources: string[] | null;
  resourceTemplates: string[] | null;
  prompts: string[] | null;
}

export interface AttemptQuery {
  /** Only these runs (default: every run). */
  runIds?: number[];
  /** Only attempts at or after this time (ISO 8601). */
  since?: string;
  target?: string;
}

/** What a report needs, computed where the data is (SQL), so a million attempts answer fast. */
export interface Aggregates {
  runs: (RunRecord & { attempts: number })[];
  attempts: number;
  targets: number;
  firstAt: string | null;
  lastAt: string | null;
  /** Attempts per class and detail. */
  classes: { class: string; detail: string; count: number }[];
  /** Attempts per class in each run, for "classes per run over time". */
  classesPerRun: { runId: number; class: string; count: number }[];
  /** Successful attempts per era and revision. */
  revisions: { era: string | null; revision: string | null; count: number }[];
  /** JSON-RPC errors seen, with the messages (up to a few per code). */
  rpcErrors: { code: number; range: string | null; class: string; detail: string; count: number; messages: string[] }[];
  /** HTTP statuses seen on failing attempts. */
  httpStatuses: { status: number; count: number }[];
  /** Elapsed time of attempts, bucketed (upper bounds in ms; the last bucket is open). */
  latency: { upToMs: number | null; count: number }[];
  /** Defects seen, by code. */
  defects: { code: string; count: number }[];
  /**
   * The servers that asked for sign-in, each once, by the latest attempt that carries a sign-in
   * diagnosis: how many, per verdict, the broken ones by the first error of their chain, and how
   * many a strict client fails but the TypeScript SDK gets through.
   */
  signin: {
    asked: number;
    verdicts: { verdict: string; count: number }[];
    broken: { code: string; count: number }[];
    lenientOk: number;
  };
  /** Per target: its history and latest verdict. */
  perTarget: {
    target: string;
    name: string | null;
    attempts: number;
    firstAt: string;
    lastAt: string;
    classes: Record<string, number>;
    latest: Pick<
      AttemptRecord,
      | "class"
      | "detail"
      | "era"
      | "revision"
      | "at"
      | "advice"
      | "tools"
      | "elapsedMs"
      | "auth"
      | "defects"
      | "httpStatus"
      | "rpcCode"
      | "serverName"
      | "serverVersion"
    >;
  }[];
}

/** One target's history and latest verdict: a row of `Aggregates.perTarget`. */
export type TargetSummary = Aggregates["perTarget"][number];

export interface AggregateOptions {
  /**
   * false: `perTarget` is left empty (`targets` still counts them all), for a report that reads
   * them from `perTarget()` a page at a time instead. Default true.
   */
  perTarget?: boolean;
}

/** How many targets `perTarget()` reads from the database at once. */
export const TARGET_PAGE = 1000;

export interface Store {
  /** Where the data is, for messages: a file path, or a URL without its password. */
  readonly where: string;
  /** Creates a run and its target list; returns the run's id. */
  startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): Promise<number>;
  /** Marks a run finished (every target has its attempt). */
  finishRun(runId: number): Promise<void>;
  /**
   * Records one finished attempt, atomically: a crash loses no finished attempt and never half of
   * one. A second attempt at the same target in the same run is refused (an error).
   */
  recordAttempt(attempt: AttemptRecord): Promise<void>;
  /** Targets of a run that have no attempt yet (what `--resume` still has to do). */
  pendingTargets(runId: number): Promise<TargetRecord[]>;
  /** The newest run that is not finished, if any. */
  unfinishedRun(): Promise<RunRecord | undefined>;
  runs(): Promise<RunRecord[]>;
  /** Attempts in time order; streams, so a million rows never sit in memory at once. */
  attempts(query?: AttemptQuery): AsyncIterableIterator<AttemptRecord>;
  aggregate(query?: AttemptQuery, options?: AggregateOptions): Promise<Aggregates>;
  /**
   * Each target's summary, as `aggregate()` gives them, read a page at a time and in no
   * particular order, so a million targets never sit in memory at once.
   */
  perTarget(query?: AttemptQuery): AsyncIterableIterator<TargetSummary>;
  /**
   * Attempts in time order with only what following a server's history needs (class, revision,
   * time, latency, identity, surface): no defects, advice or sign-in chain to read and parse, so
   * `report --changes` and `report --serve` read months of a registry-sized census quickly.
   */
  history(query?: AttemptQuery): AsyncIterableIterator<HistoryRecord>;
  /** The canonical JSON of each tool definition asked for, by digest (unknown digests are left out). */
  toolDefinitions(digests: readonly string[]): Promise<Map<string, string>>;
  /**
   * Deletes every attempt that started before `before` (ISO 8601), and the tool definitions no
   * attempt lists any more; runs and targets stay. Returns how many attempts were deleted.
   */
  prune(before: string): Promise<number>;
  close(): Promise<void>;
  /**
   * Joins a run as one of several workers sharing it, when the engine can share one between
   * processes (PostgreSQL); absent when it cannot (SQLite: one census process per file).
   */
  share?(runId: number, options: ShareOptions): Promise<SharedRun>;
}

export interface ShareOptions {
  /** How long a claim outlives its worker's last sign of life. */
  leaseMs: number;
  /** The least time between the end of one request to a host and the start of the next. */
  gapMs?: number;
  /** Who this worker is, for a person reading the workers table (host name, pid). */
  label: string;
}

/** One worker's hold on a shared run: what it claims, it probes, and it alone, while its lease runs. */
export interface SharedRun {
  readonly workerId: number;
  /**
   * Takes up to `max` targets nobody holds (or whose holder's lease ran out), never more in
   * flight to one host, across all workers, than `perHost`, and none from a host still in its gap.
   */
  claim(max: number, perHost: number): Promise<TargetRecord[]>;
  /**
   * Stores finished attempts (one transaction) and releases their claims. Returns those stored:
   * an attempt another worker finished first (after this one's lease ran out) is dropped.
   */
  finish(attempts: readonly AttemptRecord[]): Promise<AttemptRecord[]>;
  /** Extends the lease; called well within it while the worker lives. */
  renew(): Promise<void>;
  /** The whole run's state, whichever worker did the work. */
  progress(): Promise<{ done: number; total: number; classes: Map<string, number> }>;
  /** Gives back what this worker still holds, and ends its lease. */
  leave(): Promise<void>;
}

/**
 * The database was not opened because it is not one mcp-wire may use (another program's tables,
 * not a database at all, a newer schema, nothing to read): a usage error, told in one line.
 */
export class StoreRefused extends Error {
  override name = "StoreRefused";
  readonly code: string = "ERR_MCP_WIRE_STORE_REFUSED";
}

/**
 * The database driver the census needs is not installed, or not usable: `better-sqlite3` and
 * `pg` are optional peers of the package, so a program that only decodes or connects never
 * installs them. The message names the command that installs the one missing.
 */
export class DriverMissing extends StoreRefused {
  override name = "DriverMissing";
  override readonly code = "ERR_MCP_WIRE_DRIVER_MISSING";
}

/**
 * The database stopped answering after it was opened: the server went away, the connection
 * broke, or a call passed its deadline (a server that is up but frozen). What was committed
 * before is kept; what was in flight was not stored, and a resume does it again.
 */
export class StoreUnreachable extends Error {
  override name = "StoreUnreachable";
  readonly code = "ERR_MCP_WIRE_STORE_UNREACHABLE";
  constructor(
    /** Where the database is, as a message may name it. */
    readonly where: string,
    /** What the driver said, in a few words. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${where} became unreachable: ${reason}`, options);
  }
}

/** Every item of an async stream, in order (Node 20 has no Array.fromAsync). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/**
 * Where census attempts live. The census writes through this interface and the report reads
 * through it, so another backend (PostgreSQL, with several census workers claiming targets
 * with `FOR UPDATE SKIP LOCKED`) can be added without touching either. SQLite is the default.
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
  invalid?: "bad_url" | "template";
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
  /** Per target: its history and latest verdict. */
  perTarget: {
    target: string;
    name: string | null;
    attempts: number;
    firstAt: string;
    lastAt: string;
    classes: Record<string, number>;
    latest: Pick<AttemptRecord, "class" | "detail" | "era" | "revision" | "at" | "advice" | "tools" | "elapsedMs">;
  }[];
}

export interface Store {
  /** Creates a run and its target list; returns the run's id. */
  startRun(source: string, targets: readonly TargetRecord[], settings: Record<string, unknown>): number;
  /** Marks a run finished (every target has its attempt). */
  finishRun(runId: number): void;
  /** Records one finished attempt, atomically: a crash loses no finished attempt and never half of one. */
  recordAttempt(attempt: AttemptRecord): void;
  /** Targets of a run that have no attempt yet (what `--resume` still has to do). */
  pendingTargets(runId: number): TargetRecord[];
  /** The newest run that is not finished, if any. */
  unfinishedRun(): RunRecord | undefined;
  runs(): RunRecord[];
  /** Attempts in time order; streams, so a million rows never sit in memory at once. */
  attempts(query?: AttemptQuery): IterableIterator<AttemptRecord>;
  aggregate(query?: AttemptQuery): Aggregates;
  close(): void;
}

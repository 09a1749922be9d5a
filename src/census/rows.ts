/**
 * The rows the census tables give back, one shape for both engines, and the records made from
 * them. The engines differ only in how a value comes back: an id (SQLite: a number; PostgreSQL:
 * a bigint, as a string), a time (SQLite: ISO text for a run, ms since the epoch for an attempt;
 * PostgreSQL: a Date), a JSON column (SQLite: text; PostgreSQL: jsonb, parsed) and a flag
 * (SQLite: 0 or 1; PostgreSQL: a boolean). Each store names its kinds in an `Engine` and says
 * how to read them in a `Decode`.
 */
import type { Revision } from "../rules/revisions.js";
import type { Aggregates, AttemptRecord, HistoryRecord, RunRecord, TargetKind, TargetRecord } from "./store.js";
import type { SurfaceCache, SurfaceRow } from "./surface-rows.js";

export interface Engine {
  id: number | string;
  runTime: string | Date;
  at: number | Date;
  json: unknown;
  flag: number | boolean;
}

/** How a store reads its engine's values. */
export interface Decode<E extends Engine> {
  id(v: E["id"]): number;
  runTime(v: E["runTime"]): string;
  at(v: E["at"]): string;
  json<T>(v: E["json"]): T;
}

export interface RunRow<E extends Engine> {
  id: E["id"];
  started_at: E["runTime"];
  finished_at: E["runTime"] | null;
  source: string;
  targets: number;
  settings: E["json"];
}

export interface TargetRow<E extends Engine> {
  target: string;
  kind: TargetKind;
  name: string | null;
  untrusted: E["flag"];
  invalid: TargetRecord["invalid"] | null;
}

/** An attempt's columns, and its target's, as the report's "latest verdict" reads them. */
export interface LatestRow<E extends Engine> {
  target: string;
  name: string | null;
  class: string;
  detail: string;
  era: "modern" | "legacy" | null;
  revision: Revision | null;
  at: E["at"];
  advice: string | null;
  tools: number | null;
  elapsed_ms: number;
  auth: E["json"] | null;
  defects: E["json"];
  http_status: number | null;
  rpc_code: number | null;
  server_name: string | null;
  server_version: string | null;
}

/** The columns a latest-verdict query selects (`a.` the attempt, `t.` its target), in LatestRow's order. */
export const LATEST_COLUMNS =
  "t.target, t.name, a.class, a.detail, a.era, a.revision, a.at, a.advice, a.tools, a.elapsed_ms, a.auth, a.defects, a.http_status, a.rpc_code, a.server_name, a.server_version";

export interface AttemptRow<E extends Engine> extends LatestRow<E> {
  id: E["id"];
  run_id: E["id"];
  transport: string | null;
  content_type: string | null;
  rpc_message: string | null;
  rpc_range: string | null;
  repro: string | null;
}

export function runRecord<E extends Engine>(r: RunRow<E>, d: Decode<E>): RunRecord {
  return {
    id: d.id(r.id),
    startedAt: d.runTime(r.started_at),
    finishedAt: r.finished_at === null ? null : d.runTime(r.finished_at),
    source: r.source,
    targets: r.targets,
    settings: d.json<Record<string, unknown>>(r.settings),
  };
}

export function targetRecord<E extends Engine>(r: TargetRow<E>): TargetRecord {
  return {
    target: r.target,
    kind: r.kind,
    name: r.name,
    ...(r.untrusted ? { untrusted: true } : {}),
    ...(r.invalid ? { invalid: r.invalid } : {}),
  };
}

export function latestRecord<E extends Engine>(
  r: LatestRow<E>,
  d: Decode<E>,
): Aggregates["perTarget"][number]["latest"] {
  return {
    class: r.class,
    detail: r.detail,
    era: r.era,
    revision: r.revision,
    at: d.at(r.at),
    advice: r.advice,
    tools: r.tools,
    elapsedMs: r.elapsed_ms,
    auth: r.auth === null ? null : d.json<Record<string, unknown>>(r.auth),
    defects: d.json(r.defects),
    httpStatus: r.http_status,
    rpcCode: r.rpc_code,
    serverName: r.server_name,
    serverVersion: r.server_version,
  };
}

export function attemptRecord<E extends Engine>(r: AttemptRow<E>, d: Decode<E>): AttemptRecord {
  return {
    runId: d.id(r.run_id),
    target: r.target,
    at: d.at(r.at),
    class: r.class,
    detail: r.detail,
    era: r.era,
    revision: r.revision,
    transport: r.transport,
    httpStatus: r.http_status,
    contentType: r.content_type,
    rpcCode: r.rpc_code,
    rpcMessage: r.rpc_message,
    rpcRange: r.rpc_range,
    tools: r.tools,
    serverName: r.server_name,
    serverVersion: r.server_version,
    defects: d.json(r.defects),
    elapsedMs: r.elapsed_ms,
    repro: r.repro,
    advice: r.advice,
    auth: r.auth === null ? null : d.json<Record<string, unknown>>(r.auth),
  };
}

/** An attempt's columns as a history reads them (`Store.history`), beside its surface's. */
export interface HistoryRow<E extends Engine> extends SurfaceRow {
  run_id: E["id"];
  target: string;
  at: E["at"];
  class: string;
  detail: string;
  revision: Revision | null;
  elapsed_ms: number;
  server_name: string | null;
  server_version: string | null;
}

/** The columns of HistoryRow but the surface's (`a.` the attempt, `t.` its target). */
export const HISTORY_COLUMNS =
  "a.run_id, t.target, a.at, a.class, a.detail, a.revision, a.elapsed_ms, a.server_name, a.server_version";

export function historyRecord<E extends Engine>(r: HistoryRow<E>, d: Decode<E>, surfaces: SurfaceCache): HistoryRecord {
  return {
    runId: d.id(r.run_id),
    target: r.target,
    at: d.at(r.at),
    class: r.class,
    detail: r.detail,
    revision: r.revision,
    elapsedMs: r.elapsed_ms,
    serverName: r.server_name,
    serverVersion: r.server_version,
    surface: surfaces.of(r),
  };
}
